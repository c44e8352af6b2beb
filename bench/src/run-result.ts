/** What the orchestrator asks of one child run. */
export interface ChildParams {
  readonly contender: string;
  readonly mode: 'sync' | 'watch' | 'relist' | 'e2e';
  readonly kubeconfigPath: string;
  readonly objects: number;
  readonly primaries: number;
  readonly events: number;
  readonly lookups: number;
  /** End to end: events per second the server paces. */
  readonly rate?: number;
}

/** Measurements of one child run (the Go contender prints the same fields). */
export interface RunResult {
  contender: string;
  syncMs: number;
  syncCpuS: number;
  kindexModule?: string;
  peakRssBytes?: number;
  retainedHeapBytes?: number;
  lookupP50Us?: number;
  lookupP99Us?: number;
  lookupFound?: number;
  events?: number;
  watchS?: number;
  eventsPerS?: number;
  cpuSPer1000?: number;
  eventsAfterRelist?: number;
  relistMs?: number;
  recoveryMs?: number;
  /** End to end: reconciles of event-stamped primaries (fewer than events when events coalesced). */
  reconciles?: number;
  latencyP50Ms?: number;
  latencyP99Ms?: number;
  latencyMaxMs?: number;
  /** End to end: events per second the server achieved (filled in by the orchestrator). */
  sentPerS?: number;
  /** Requests other than GET the server received (filled in by the orchestrator). */
  writeRequests?: number;
}
