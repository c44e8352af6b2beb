/** What the orchestrator asks of one child run. */
export interface ChildParams {
  readonly contender: string;
  readonly mode: 'sync' | 'watch' | 'relist' | 'e2e' | 'restart';
  readonly kubeconfigPath: string;
  readonly objects: number;
  readonly primaries: number;
  readonly events: number;
  readonly lookups: number;
  /** End to end: events per second the server paces. */
  readonly rate?: number;
  /** Restart: ms of (simulated I/O) work in each reconcile. */
  readonly reconcileWorkMs?: number;
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
  /** p99 without the run's first fifth (JIT compilation and first-use costs), ms. */
  latencyP99WarmMs?: number;
  /** End to end: CPU per 1,000 events after the run's first fifth (as for the p99), s. */
  cpuSPer1000Warm?: number;
  /** End to end: CPU per 1,000 events over the run's second half (from reconcile events / 2), s. */
  cpuSPer1000SecondHalf?: number;
  latencyMaxMs?: number;
  /** End to end: events per second the server achieved (filled in by the orchestrator). */
  sentPerS?: number;
  /** Requests other than GET the server received (filled in by the orchestrator). */
  writeRequests?: number;
  /** Restart: ms from the changes sent until every changed object's reconcile started. */
  changedReconciledMs?: number;
  /** Restart: reconciles of unchanged objects that started before the last changed one. */
  unchangedBefore?: number;
  /** Restart: ms from the changes sent until the whole initial wave was reconciled. */
  waveMs?: number;
}
