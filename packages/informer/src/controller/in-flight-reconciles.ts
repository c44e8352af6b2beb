/**
 * The reconciles a controller runs now, by primary: what a shard release waits for
 * ({@link InFlightReconciles.whenIdle}) and what a lost shard aborts
 * ({@link InFlightReconciles.abortMatching}). The dispatcher adds each reconcile as it starts and
 * removes it as it ends; a release waiting on it is told then, by a direct call, with no timer.
 */
export class InFlightReconciles<P> {
  /** Primaries being reconciled now and their keys, side by side (short lists: no map). */
  readonly #keys: string[] = [];
  readonly #primaries: P[] = [];
  /** Running reconciles whose shard was lost, with the error: what they return is not written. */
  readonly #lost = new Map<string, unknown>();
  /** Callers of `whenIdle` waiting for the reconciles they name to end; empty but during a release. */
  #waiters: IdleWaiter<P>[] = [];

  /** A reconcile of `primary` starts. */
  started(key: string, primary: P): void {
    this.#keys.push(key);
    this.#primaries.push(primary);
  }

  /** The reconcile of `key` ended, however: a release waiting for it may go on. */
  ended(key: string): void {
    const at = this.#keys.lastIndexOf(key);
    swapRemove(this.#keys, at);
    swapRemove(this.#primaries, at);
    if (this.#lost.size !== 0) this.#lost.delete(key);
    if (this.#waiters.length !== 0) this.#wake();
  }

  /** The error the running reconcile of `key` was aborted with (its shard was lost), if it was. */
  lostReason(key: string): { readonly reason: unknown } | undefined {
    return this.#lost.has(key) ? { reason: this.#lost.get(key) } : undefined;
  }

  /**
   * Marks the running reconciles of primaries matching `belongs` as lost with `reason` (once
   * each), calls `abort` for each, and returns their keys.
   */
  abortMatching(belongs: (primary: P) => boolean, reason: unknown, abort: (key: string) => void): string[] {
    const aborted: string[] = [];
    const primaries = [...this.#primaries];
    for (const [i, key] of [...this.#keys].entries()) {
      if (!belongs(primaries[i]!) || this.#lost.has(key)) continue;
      this.#lost.set(key, reason);
      abort(key);
      aborted.push(key);
    }
    return aborted;
  }

  /**
   * Resolves once no reconcile of a primary matching `belongs` is running: at once when none is,
   * else when the last of them ends (checked as each reconcile ends, no timer).
   */
  whenIdle(belongs: (primary: P) => boolean): Promise<void> {
    if (!this.#primaries.some(belongs)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ belongs, resolve }));
  }

  /** Resolves the waiters none of whose reconciles runs any more. */
  #wake(): void {
    const waiting: IdleWaiter<P>[] = [];
    for (const waiter of this.#waiters) {
      if (this.#primaries.some(waiter.belongs)) waiting.push(waiter);
      else waiter.resolve();
    }
    this.#waiters = waiting;
  }
}

/** A caller of `whenIdle`: which primaries it waits for, and how to tell it they are done. */
interface IdleWaiter<P> {
  readonly belongs: (primary: P) => boolean;
  readonly resolve: () => void;
}

/** Removes `list[at]`, moving the last entry into its place: for short lists whose order does not matter. */
function swapRemove(list: unknown[], at: number): void {
  if (at < 0) return; // not there: writing list[-1] and popping would drop another entry
  list[at] = list[list.length - 1];
  list.pop();
}
