import type { Clock } from '../../queue/clock.js';
import type { Trigger } from '../../source/trigger.js';
import type { ReconcileCause, ReconcileCauses } from '../reconcile-cause.js';

type CauseSeed = Omit<ReconcileCause, 'count' | 'lastAt'>;

/** The causes gathered for one primary between two of its dispatches. */
export interface CauseEntry {
  /** Distinct causes in order of first arrival; handed out (frozen) by `take`. */
  readonly causes: ReconcileCause[];
  triggers: number;
  omitted: number;
}

/** Where a primary's entry is kept (the event processor's per-primary record). */
export interface CauseHolder {
  causes: CauseEntry | undefined;
  /** Triggers counted since the last dispatch when causes are not kept. */
  counted: number;
}

/**
 * Gathers the causes of each primary between two of its dispatches into the primary's own
 * record (a {@link CauseHolder}: no map of its own). Bounded per primary (`maxCauses` distinct
 * entries; further triggers are only counted) so a storm of events on one primary costs O(1)
 * memory, and a primary's entry lives only until its next dispatch.
 *
 * On the per-event path: most primaries gather one cause between dispatches, so causes are
 * matched by comparing their fields over the (bounded) list, with no key string per trigger.
 * With `keep` false nothing is kept but the count (a number on the holder): no entry, no
 * cause object, nothing retained between dispatches, for a controller whose causes nobody
 * reads (its `inspection` off, debug lines not written).
 */
export class PendingCauses {
  readonly #maxCauses: number;
  readonly #keep: boolean;
  /** Counted-only causes handed out, by trigger count: frozen, shared, made once each. */
  readonly #counted: ReconcileCauses[] = [];

  /** @throws RangeError when `maxCauses` (the processor's `maxCausesPerReconcile`) is not a positive integer. */
  constructor(maxCauses: number, keep: boolean) {
    if (!Number.isInteger(maxCauses) || maxCauses < 1) {
      throw new RangeError(`EventProcessor: maxCausesPerReconcile must be a positive integer, got ${String(maxCauses)}`);
    }
    this.#maxCauses = maxCauses;
    this.#keep = keep;
  }

  /** Records the trigger's cause in `holder`, at `clock`'s time (read only when causes are kept). */
  addTrigger(holder: CauseHolder, trigger: Trigger, clock: Clock): void {
    if (!this.#keep) {
      holder.counted++;
      return;
    }
    const now = clock.now();
    const cause = trigger.cause;
    const source = String(trigger.source);
    switch (cause?.type) {
      case 'resource':
        return this.#add(holder, 'resource', source, cause.event, cause.objectKey, undefined, now);
      case 'poll':
        return this.#add(holder, 'poll', source, cause.change, undefined, undefined, now);
      case 'external':
        return this.#add(holder, 'external', source, undefined, undefined, cause.detail, now);
      case 'timer':
        return this.#add(holder, 'timer', source, undefined, undefined, undefined, now);
      default:
        return this.#add(holder, 'external', source, undefined, undefined, `cause ${String(cause?.type)}`, now);
    }
  }

  /** Records one cause in `holder`, at `clock`'s time (read only when causes are kept). */
  add(holder: CauseHolder, seed: CauseSeed, clock: Clock): void {
    if (!this.#keep) {
      holder.counted++;
      return;
    }
    this.#add(holder, seed.type, seed.source, seed.event, seed.objectKey, seed.detail, clock.now());
  }

  #add(
    holder: CauseHolder,
    type: ReconcileCause['type'],
    source: string,
    event: ReconcileCause['event'],
    objectKey: string | undefined,
    detail: string | undefined,
    now: number,
  ): void {
    let entry = holder.causes;
    if (entry === undefined) {
      entry = { causes: [], triggers: 0, omitted: 0 };
      holder.causes = entry;
    }
    entry.triggers++;
    const causes = entry.causes;
    for (let i = 0; i < causes.length; i++) {
      const c = causes[i]!;
      if (c.type === type && c.source === source && c.event === event && c.objectKey === objectKey && c.detail === detail) {
        // A new object: `peek` may have handed out the old one.
        causes[i] = { ...c, count: c.count + 1, lastAt: now };
        return;
      }
    }
    if (causes.length >= this.#maxCauses) {
      entry.omitted++;
      return;
    }
    const cause: { -readonly [F in keyof ReconcileCause]: ReconcileCause[F] } = { type, source, count: 1, lastAt: now };
    if (event !== undefined) cause.event = event;
    if (objectKey !== undefined) cause.objectKey = objectKey;
    if (detail !== undefined) cause.detail = detail;
    causes.push(cause);
  }

  /** The causes gathered in `holder`, without taking them; undefined when none. */
  peek(holder: CauseHolder | undefined): ReconcileCauses | undefined {
    if (holder !== undefined && holder.counted > 0) return this.#countedCauses(holder.counted);
    const entry = holder?.causes;
    return entry === undefined
      ? undefined
      : Object.freeze({ causes: Object.freeze([...entry.causes]), triggers: entry.triggers, omitted: entry.omitted });
  }

  /** Takes the causes gathered in `holder`: the next ones start afresh. */
  take(holder: CauseHolder): ReconcileCauses {
    const counted = holder.counted;
    if (counted > 0) {
      holder.counted = 0;
      return this.#countedCauses(counted);
    }
    const entry = holder.causes;
    if (entry === undefined) return EMPTY;
    holder.causes = undefined;
    // The entry is gone: it is handed over as is, frozen (no copy per dispatch).
    Object.freeze(entry.causes);
    return Object.freeze(entry);
  }

  /** `triggers` triggers, none of them listed: the same object for each count up to 64. */
  #countedCauses(triggers: number): ReconcileCauses {
    if (triggers > 64) return Object.freeze({ causes: EMPTY.causes, triggers, omitted: triggers });
    return (this.#counted[triggers] ??= Object.freeze({ causes: EMPTY.causes, triggers, omitted: triggers }));
  }
}

const EMPTY: ReconcileCauses = Object.freeze({ causes: Object.freeze([]), triggers: 0, omitted: 0 });
