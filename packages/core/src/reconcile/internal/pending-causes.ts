import type { Trigger } from '../../source/trigger.js';
import type { ReconcileCause, ReconcileCauses } from '../reconcile-cause.js';

type CauseSeed = Omit<ReconcileCause, 'count' | 'lastAt'>;

/**
 * The causes gathered for each primary between two of its dispatches. Bounded per primary
 * (`maxCauses` distinct entries; further triggers are only counted) so a storm of events on one
 * primary costs O(1) memory, and a primary's entry lives only until its next dispatch.
 */
export class PendingCauses {
  readonly #maxCauses: number;
  readonly #pending = new Map<string, { readonly byKey: Map<string, ReconcileCause>; triggers: number; omitted: number }>();

  constructor(maxCauses: number) {
    this.#maxCauses = maxCauses;
  }

  /** Records the trigger's cause for `primaryKey`. */
  addTrigger(primaryKey: string, trigger: Trigger, now: number): void {
    this.add(primaryKey, seedOf(trigger), now);
  }

  /** Records one cause for `primaryKey`. */
  add(primaryKey: string, seed: CauseSeed, now: number): void {
    let entry = this.#pending.get(primaryKey);
    if (entry === undefined) {
      entry = { byKey: new Map(), triggers: 0, omitted: 0 };
      this.#pending.set(primaryKey, entry);
    }
    entry.triggers++;
    const key = `${seed.type}\u0000${seed.source}\u0000${seed.event ?? ''}\u0000${seed.objectKey ?? ''}\u0000${seed.detail ?? ''}`;
    const existing = entry.byKey.get(key);
    if (existing !== undefined) entry.byKey.set(key, { ...existing, count: existing.count + 1, lastAt: now });
    else if (entry.byKey.size < this.#maxCauses) entry.byKey.set(key, { ...seed, count: 1, lastAt: now });
    else entry.omitted++;
  }

  /** The causes gathered for `primaryKey`, without taking them. */
  peek(primaryKey: string): ReconcileCauses | undefined {
    const entry = this.#pending.get(primaryKey);
    return entry === undefined
      ? undefined
      : Object.freeze({ causes: Object.freeze([...entry.byKey.values()]), triggers: entry.triggers, omitted: entry.omitted });
  }

  /** Takes the causes gathered for `primaryKey`: the next ones start afresh. */
  take(primaryKey: string): ReconcileCauses {
    const causes = this.peek(primaryKey) ?? EMPTY;
    this.#pending.delete(primaryKey);
    return causes;
  }

  /** Forgets `primaryKey` (deleted primary). */
  delete(primaryKey: string): void {
    this.#pending.delete(primaryKey);
  }

  clear(): void {
    this.#pending.clear();
  }
}

const EMPTY: ReconcileCauses = Object.freeze({ causes: Object.freeze([]), triggers: 0, omitted: 0 });

function seedOf(trigger: Trigger): CauseSeed {
  const cause = trigger.cause;
  const source = String(trigger.source);
  switch (cause?.type) {
    case 'resource':
      return { type: 'resource', source, event: cause.event, objectKey: cause.objectKey };
    case 'poll':
      return { type: 'poll', source, event: cause.change };
    case 'external':
      return { type: 'external', source, detail: cause.detail };
    case 'timer':
      return { type: 'timer', source };
    default:
      return { type: 'external', source, detail: `cause ${String(cause?.type)}` };
  }
}
