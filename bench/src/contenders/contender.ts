/** A primary to look up secondaries of. */
export interface PrimaryRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace: string };
}

/** One Node contender, run inside its own child process. */
export interface Contender {
  /** Lists, indexes, starts watching; resolves when the cache holds the list. */
  start(): Promise<void>;
  /** Objects in the cache. */
  size(): number;
  /** Called once per object event delivered to handlers after the initial sync (before filters). */
  onEvent(callback: (name: string) => void): void;
  /** Number of secondaries found for a primary, through the contender's index; undefined when it has none. */
  readonly lookup: ((primary: PrimaryRef) => number) | undefined;
  stop(): Promise<void>;
}

/** How a contender reaches the stream server. */
export interface ContenderOptions {
  readonly kubeconfigPath: string;
  readonly namespace: string;
}
