/** What a reconciler of the end-to-end scenario sees of the primary. */
export interface ReconciledObject {
  readonly metadata?: { readonly name?: string; readonly annotations?: Readonly<Record<string, string>> };
}

/** One controller of the end-to-end scenario, run inside its own child process. */
export interface E2eContender {
  /** Lists, starts watching and reconciling; resolves when the cache holds the list. */
  start(): Promise<void>;
  /** Objects in the cache. */
  size(): number;
  stop(): Promise<void>;
}

/** How an end-to-end contender reaches the stream server, and the reconcile it runs. */
export interface E2eContenderOptions {
  readonly kubeconfigPath: string;
  readonly namespace: string;
  /** Called at the start of each reconcile with the primary as the controller hands it over. */
  readonly reconcile: (object: ReconciledObject) => void;
}
