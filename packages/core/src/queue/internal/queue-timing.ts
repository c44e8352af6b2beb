import { systemClock, type Clock } from '../clock.js';
import type { WorkQueueMetrics, WorkQueueMetricsProvider } from '../work-queue-metrics.js';
import { SlotMap } from './slot-map.js';

/** Milliseconds from an arbitrary origin, with sub-millisecond resolution. */
const highResolutionNow = (): number => performance.now();

/**
 * The metrics bookkeeping of a work queue, shared by {@link WorkQueue} and
 * {@link PriorityWorkQueue}: when each waiting item was added and when each item being processed
 * was handed out, for the queue and work durations. Created only with a metrics provider, so a
 * queue without one times and counts nothing.
 */
export class QueueTiming<K> {
  readonly #metrics: WorkQueueMetrics;
  // Usually one entry each (see SlotMap).
  readonly #addedAt = new SlotMap<K>();
  readonly #startedAt = new SlotMap<K>();
  readonly #now: () => number;

  constructor(
    provider: WorkQueueMetricsProvider,
    name: string,
    clock: Clock,
    depth: () => number,
    depthByPriority?: () => ReadonlyMap<number, number>,
  ) {
    // Date.now() counts whole milliseconds and most queue waits are shorter: with the system
    // clock the durations come from the high-resolution timer, else they would mostly read 0.
    // Only differences of its readings are used, so its epoch does not matter: no
    // `performance.timeOrigin`, whose getter allocates a number on each read (a quarter of the
    // timing's cost, three reads per event). A test's FakeClock is used as given.
    this.#now = clock === systemClock ? highResolutionNow : () => clock.now();
    this.#metrics = provider.forQueue(name, {
      depth,
      ...(depthByPriority !== undefined ? { depthByPriority } : {}),
      unfinishedWorkSeconds: () => {
        const now = this.#now();
        let total = 0;
        this.#startedAt.forEachValue((at) => (total += now - at));
        return total / 1000;
      },
      longestRunningProcessorSeconds: () => {
        const now = this.#now();
        let longest = 0;
        this.#startedAt.forEachValue((at) => (longest = Math.max(longest, now - at)));
        return longest / 1000;
      },
    });
  }

  /** An add was accepted (not coalesced): count it and start its wait. */
  added(item: K): void {
    this.#metrics.added();
    this.#addedAt.set(item, this.#now());
  }

  /** A rate-limited requeue was asked for. */
  retried(): void {
    this.#metrics.retried();
  }

  /** Records the wait of an item handed to a worker and starts timing its work. */
  handedOut(item: K): void {
    const now = this.#now();
    const addedAt = this.#addedAt.take(item);
    this.#startedAt.set(item, now);
    this.#metrics.started(addedAt === undefined ? 0 : (now - addedAt) / 1000);
  }

  /** A worker finished `item`: records its work duration. */
  finished(item: K): void {
    const startedAt = this.#startedAt.take(item);
    if (startedAt !== undefined) this.#metrics.finished((this.#now() - startedAt) / 1000);
  }

  /** `item` left the queue without being handed out. */
  dropped(item: K): void {
    this.#addedAt.delete(item);
  }

  /** Every waiting item left (shutdown). */
  droppedAll(): void {
    this.#addedAt.clear();
  }
}
