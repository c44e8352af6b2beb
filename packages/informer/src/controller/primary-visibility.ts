import { evaluate, type KubernetesObject, type Predicate } from '@kindex/core';

/**
 * Which primaries a controller sees: kopf's stealth filter, except that a primary marked for
 * deletion and carrying the controller's finalizer is never hidden (its cleanup must run for the
 * deletion to finish). One object read by both ends of the path: the primary source (which events
 * become triggers) and the reconciliation dispatcher (which triggers from secondaries, timers or
 * retries may reach a primary), so neither calls into the other.
 */
export class PrimaryVisibility<P extends KubernetesObject> {
  /** The controller's finalizer, when it cleans up. */
  readonly finalizer: string | undefined;
  /** kopf's stealth filter of the primaries, if any. */
  readonly stealthFilter: Predicate<P> | undefined;
  readonly #onProblem: (error: unknown) => void;

  /** @param onProblem where a throwing stealth filter's error goes (the controller's `problem` events). */
  constructor(finalizer: string | undefined, stealthFilter: Predicate<P> | undefined, onProblem: (error: unknown) => void) {
    this.finalizer = finalizer;
    this.stealthFilter = stealthFilter;
    this.#onProblem = onProblem;
  }

  /** Whether the primary is marked for deletion and carries our finalizer. */
  awaitsOurCleanup(primary: P): boolean {
    return (
      this.finalizer !== undefined &&
      primary.metadata?.deletionTimestamp !== undefined &&
      primary.metadata.finalizers?.includes(this.finalizer) === true
    );
  }

  /** Whether a reconcile may reach the primary: it awaits our cleanup, or the stealth filter (if any) lets it through. */
  visible(primary: P): boolean {
    if (this.stealthFilter === undefined || this.awaitsOurCleanup(primary)) return true;
    return evaluate(this.stealthFilter, { type: 'generic', object: primary }, this.#onProblem);
  }
}
