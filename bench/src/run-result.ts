/** What the orchestrator asks of one child run. */
export interface ChildParams {
  readonly contender: string;
  readonly mode: 'sync' | 'watch' | 'relist';
  readonly kubeconfigPath: string;
  readonly objects: number;
  readonly primaries: number;
  readonly events: number;
  readonly lookups: number;
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
}
