import type { Counter, Histogram } from 'prom-client';

/**
 * One labelled series of a prom-client metric, bound once so that recording costs no label work.
 *
 * prom-client 15's children (`metric.labels(...)`) only remember the labels: each `inc` or
 * `observe` still copies them, validates them and hashes them into a string to find the series
 * (about a fifth of the operator's per-reconcile metrics CPU in the e2e profile, three histogram
 * observations and two counter increments per reconcile). A bound series finds the series' entry
 * by the hash prom-client gave it, once, and updates it in place; a `reset()` or `remove()` of the
 * metric is seen (the entry is looked up by that key each time: a property read, no hashing) and
 * the series made again at zero, as prom-client would.
 *
 * Should prom-client keep its series differently one day, binding finds no entry and the bound
 * series falls back to the child, so values stay right (only slower); `bound-series.test.ts`
 * compares the exposition of both ways.
 */

/** The shape prom-client 15 keeps a counter's series in (`hashMap`, by label hash). */
interface CounterEntry {
  value: number;
}
/** The shape prom-client 15 keeps a histogram's series in. */
interface HistogramEntry {
  sum: number;
  count: number;
  /** By bucket bound, as a property name (`String(bound)`). */
  bucketValues: Record<string, number>;
}

/** A counter series: `inc()` adds one, `inc(n)` adds n. */
export interface BoundCounter {
  inc(value?: number): void;
}

/** A histogram series. */
export interface BoundHistogram {
  observe(value: number): void;
}

/** Binds `labels` of `counter`; the series is made now, at zero (as `child.inc(0)` does). */
export function bindCounter<T extends string>(counter: Counter<T>, labels: Partial<Record<T, string | number>>): BoundCounter {
  const child = counter.labels(labels);
  child.inc(0);
  const key = entryKey<CounterEntry>(counter, labels, (e) => typeof e.value === 'number');
  if (key === undefined) return child;
  const series = counter as unknown as { hashMap: Record<string, CounterEntry | undefined> };
  return {
    inc(value = 1): void {
      const entry = series.hashMap[key];
      if (entry === undefined || !(value >= 0) || !Number.isFinite(value)) child.inc(value);
      else entry.value += value;
    },
  };
}

/**
 * Binds `labels` of `histogram`, whose buckets are `buckets` (as given to its constructor); the
 * series is made now, at zero (as `histogram.zero(labels)` does).
 *
 * Observations are counted here, in a typed array, and added to prom-client's entry when the
 * histogram is collected (its `collect` hook, which every read of a registry calls first): the
 * entry keeps each bucket under a property named after its bound, and storing by a name chosen per
 * observation went through V8's megamorphic keyed-access stubs, ~0.8 µs per event for the three
 * histograms a reconcile feeds (seen in a CPU profile). A `reset()` or `remove()` of the series drops
 * what was counted before it, as prom-client would.
 */
export function bindHistogram<T extends string>(
  histogram: Histogram<T>,
  labels: Partial<Record<T, string | number>>,
  buckets: readonly number[],
): BoundHistogram {
  const child = histogram.labels(labels);
  histogram.zero(labels);
  const bounds = [...buckets].sort((a, b) => a - b);
  const key = entryKey<HistogramEntry>(
    histogram,
    labels,
    (e) => typeof e.sum === 'number' && typeof e.count === 'number' && bounds.every((b) => typeof e.bucketValues?.[b] === 'number'),
  );
  const hooked = histogram as unknown as { collect?: unknown };
  if (key === undefined || (hooked.collect !== undefined && typeof hooked.collect !== 'function')) return child;
  const series = histogram as unknown as { hashMap: Record<string, HistogramEntry | undefined> };
  // Each bucket's property name as the entry holds it (with the bound itself as the key, V8
  // converted the number to a string in a runtime call each time).
  const held = Object.keys(series.hashMap[key]!.bucketValues);
  const names = bounds.map((bound) => held.find((name) => Number(name) === bound) ?? String(bound));
  const limits = Float64Array.from(bounds);
  /** Observations since the last flush, by first bucket (cumulative at export; +Inf is `count`). */
  const counts = new Float64Array(bounds.length);
  /**
   * The sum of those observations, and their count, in a typed array: a fractional number kept
   * in a closure's variable is a fresh heap number on every write (16 bytes per observation).
   */
  const totals = new Float64Array(2);
  /** The entry the pending counts belong to: another one (or none) means a reset or remove came since. */
  let entry = series.hashMap[key];
  const drop = (): void => {
    totals.fill(0);
    counts.fill(0);
  };
  const flush = (): void => {
    if (totals[COUNT] === 0) return;
    if (series.hashMap[key] === entry && entry !== undefined) {
      entry.sum += totals[SUM]!;
      entry.count += totals[COUNT]!;
      for (let i = 0; i < names.length; i++) if (counts[i] !== 0) entry.bucketValues[names[i]!]! += counts[i]!;
    }
    drop();
  };
  const previous = hooked.collect as ((this: unknown) => unknown) | undefined;
  hooked.collect = function (this: unknown): unknown {
    flush();
    return previous?.call(this);
  };
  return {
    observe(value: number): void {
      const current = series.hashMap[key];
      if (current !== entry) {
        // Reset or removed: what was counted went with the old series.
        drop();
        entry = current;
      }
      if (current === undefined || !Number.isFinite(value)) {
        flush();
        child.observe(value);
        entry = series.hashMap[key];
        return;
      }
      totals[SUM]! += value;
      totals[COUNT]! += 1;
      for (let i = 0; i < limits.length; i++) {
        if (value <= limits[i]!) {
          counts[i]! += 1;
          return;
        }
      }
    },
  };
}

/** Where a bound histogram keeps the sum and the count of its pending observations. */
const SUM = 0;
const COUNT = 1;

/** The key under which the metric keeps the series of `labels`, if it keeps them as we expect. */
function entryKey<E>(metric: object, labels: object, looksRight: (entry: Partial<E>) => boolean): string | undefined {
  const map = (metric as { hashMap?: unknown }).hashMap;
  if (map === null || typeof map !== 'object') return undefined;
  const wanted = Object.entries(labels).map(([k, v]) => `${k}=${String(v)}`);
  for (const [key, entry] of Object.entries(map as Record<string, { labels?: Record<string, unknown> } | undefined>)) {
    const held = entry?.labels;
    if (held === undefined) continue;
    const heldPairs = Object.entries(held).map(([k, v]) => `${k}=${String(v)}`);
    if (heldPairs.length === wanted.length && wanted.every((p) => heldPairs.includes(p)) && looksRight(entry as Partial<E>)) return key;
  }
  return undefined;
}
