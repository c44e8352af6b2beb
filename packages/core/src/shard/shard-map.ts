/**
 * Shard maps: which hash ranges make up each shard, cut by the population actually present.
 *
 * Equal-width slices of the FNV-1a space ({@link ShardSelector.split}) suit random values such
 * as uids, but not ordinary namespace names: FNV-1a's top bits barely depend on the last
 * characters, so `team-1`..`team-30` fall into 2 of 6 equal slices and `acc-sh-00`..`acc-sh-29`
 * into one. A {@link ShardMap} instead cuts the space at quantiles of the
 * observed hashes, so each shard gets an equal share of the values present, and still hands every
 * shard a plain `shardRange(...) || ...` selector that kube-apiserver filters on.
 *
 * A map carries an `epoch`: replicas agree on one map by publishing it (see the informer's
 * `ShardCoordinator`), and a newer epoch wins.
 *
 * @module
 */
import { InvalidSelectorError } from '../selector/invalid-selector-error.js';
import { fnv1a64Hex } from './fnv1a64.js';
import { SHARD_SPACE_END, ShardSelector, type ShardField, type ShardRange, type ShardableObject } from './shard-selector.js';

/**
 * One piece of a {@link ShardMap}: the hash range `[start, end)` and the shard it belongs to.
 *
 * @example
 * ```ts
 * import { ShardMap, type ShardSegment } from '@kindex/core';
 *
 * const first: ShardSegment = ShardMap.equal('object.metadata.namespace', 4).segments[0]!;
 * first.shard; // 0
 * ```
 */
export interface ShardSegment extends ShardRange {
  readonly shard: number;
}

const TWO_64 = 1n << 64n;
const MAP_FORMAT = 1;

/**
 * The ranges of each of `shards` shards: segments that cover the 64-bit hash space exactly once,
 * in order, each assigned to one shard.
 *
 * @example
 * ```ts
 * import { ShardMap } from '@kindex/core';
 *
 * // 30 sequential namespace names over 6 shards: 5 each, where equal slices give [0, 21, 0, 0, 0, 9].
 * const names = Array.from({ length: 30 }, (_, i) => `team-${i + 1}`);
 * const map = ShardMap.balanced('object.metadata.namespace', 6, names, 1);
 * map.loads(names); // [5, 5, 5, 5, 5, 5]
 * const third = map.selectorFor([2]); // one or more shardRange terms joined with ||
 * ```
 * @see ShardSelector for the selector syntax.
 */
export class ShardMap {
  /** The field hashed. */
  readonly field: ShardField;
  /** How many shards. */
  readonly shards: number;
  /** Which map this is: a newer map has a higher epoch. `0` is the map of equal slices. */
  readonly epoch: number;
  /** The segments, by start, covering `[0, 2^64)` without gap or overlap. */
  readonly segments: readonly ShardSegment[];

  private constructor(field: ShardField, shards: number, epoch: number, segments: readonly ShardSegment[]) {
    this.field = field;
    this.shards = shards;
    this.epoch = epoch;
    this.segments = Object.freeze(segments.map((s) => Object.freeze({ ...s })));
    Object.freeze(this);
  }

  /**
   * The map of `shards` equal slices of the hash space, as {@link ShardSelector.split} cuts it:
   * right for uids, which are random. Defaults to epoch 0.
   * @throws {RangeError} when `shards` is not an integer in [1, 65536].
   */
  static equal(field: ShardField, shards: number, epoch = 0): ShardMap {
    const slices = ShardSelector.split(field, shards);
    return ShardMap.of(
      field,
      shards,
      epoch,
      slices.map((s, shard) => ({ ...s.ranges[0]!, shard })),
    );
  }

  /**
   * The map whose cuts sit at quantiles of the hashes of `values` (for example the namespace
   * names present): with `n` distinct hashes, shard `i` gets the ranks
   * `[floor(i·n/shards), floor((i+1)·n/shards))`, so every shard holds `floor(n/shards)` or
   * `ceil(n/shards)` of them. With fewer values than shards, the extra shards get a range one
   * hash wide (a selector cannot be empty) and no value.
   * @throws {RangeError} when `shards` is not an integer in [1, 65536].
   */
  static balanced(field: ShardField, shards: number, values: Iterable<string>, epoch: number): ShardMap {
    checkShards(shards);
    const hashes = [...new Set([...values].map((v) => fnv1a64Hex(v)))].sort().map((h) => BigInt('0x' + h));
    const n = hashes.length;
    const starts: bigint[] = [0n];
    for (let i = 1; i < shards; i++) {
      const rank = Math.floor((i * n) / shards);
      const wanted = rank < n ? hashes[rank]! : TWO_64;
      // Strictly increasing, and room left for the shards after this one.
      const lowest = starts[i - 1]! + 1n;
      const highest = TWO_64 - BigInt(shards - i);
      starts.push(wanted < lowest ? lowest : wanted > highest ? highest : wanted);
    }
    const segments = starts.map((start, shard) => ({
      start: hex(start),
      end: shard + 1 < shards ? hex(starts[shard + 1]!) : SHARD_SPACE_END,
      shard,
    }));
    return ShardMap.of(field, shards, epoch, segments);
  }

  /**
   * A map from its segments (checked).
   * @throws {InvalidSelectorError} when the segments leave a gap or overlap, a bound is malformed,
   *   a shard index is outside `[0, shards)`, or a shard has no segment.
   */
  static of(field: ShardField, shards: number, epoch: number, segments: readonly ShardSegment[]): ShardMap {
    checkShards(shards);
    if (!Number.isSafeInteger(epoch) || epoch < 0) throw new RangeError(`shard map epoch must be a non-negative integer, got ${epoch}`);
    const sorted = [...segments].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
    let expected = '0x0000000000000000';
    const seen = new Set<number>();
    sorted.forEach((s, i) => {
      // Checks each bound as a selector would, with a message naming the segment.
      ShardSelector.of(field, [s]);
      const where = `segments[${i}] (${s.start}, ${s.end})`;
      if (s.start !== expected) {
        throw new InvalidSelectorError(
          where,
          `shard map segments must cover the hash space once: expected a segment starting at ${expected}`,
          {
            field: `segments[${i}].start`,
          },
        );
      }
      if (!Number.isInteger(s.shard) || s.shard < 0 || s.shard >= shards) {
        throw new InvalidSelectorError(where, `shard ${s.shard} is outside [0, ${shards})`, { field: `segments[${i}].shard` });
      }
      seen.add(s.shard);
      expected = s.end;
    });
    if (expected !== SHARD_SPACE_END) {
      throw new InvalidSelectorError(expected, `shard map segments must reach ${SHARD_SPACE_END}, the last ends at ${expected}`, {
        field: 'segments',
      });
    }
    for (let shard = 0; shard < shards; shard++) {
      if (!seen.has(shard)) {
        throw new InvalidSelectorError(String(shard), `shard ${shard} has no segment; every shard needs one for its selector`, {
          field: 'segments',
        });
      }
    }
    return new ShardMap(field, shards, epoch, sorted);
  }

  /**
   * Reads a map written by {@link ShardMap.serialize} (for example from a Lease annotation).
   * @throws {InvalidSelectorError} naming the field that is missing or wrong.
   */
  static parse(text: string): ShardMap {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new InvalidSelectorError(text, 'a shard map must be JSON as ShardMap.serialize writes it', { field: 'map', cause: error });
    }
    const o = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const bad = (field: string, fix: string): never => {
      throw new InvalidSelectorError(text, `shard map field "${field}" ${fix}`, { field });
    };
    if (o['format'] !== MAP_FORMAT) bad('format', `must be ${MAP_FORMAT}, got ${JSON.stringify(o['format'])}`);
    const field = o['field'];
    if (field !== 'object.metadata.uid' && field !== 'object.metadata.namespace')
      bad('field', 'must be object.metadata.uid or object.metadata.namespace');
    const shards = o['shards'];
    const epoch = o['epoch'];
    if (typeof shards !== 'number') bad('shards', 'must be a number');
    if (typeof epoch !== 'number') bad('epoch', 'must be a number');
    const starts = o['starts'];
    const owners = o['owners'];
    if (!Array.isArray(starts) || !starts.every((s) => typeof s === 'string')) bad('starts', 'must be an array of 0x-prefixed hex bounds');
    if (!Array.isArray(owners) || owners.length !== (starts as unknown[]).length) bad('owners', 'must be an array as long as "starts"');
    const s = starts as string[];
    const segments = s.map((start, i) => ({ start, end: s[i + 1] ?? SHARD_SPACE_END, shard: (owners as number[])[i]! }));
    return ShardMap.of(field as ShardField, shards as number, epoch as number, segments);
  }

  /** The shard whose segments hold `hash` (16 lowercase hex digits, without `0x`). */
  shardOfHash(hash: string): number {
    const h = '0x' + hash;
    let lo = 0;
    let hi = this.segments.length - 1;
    // The last segment whose start is <= h (same-width hex strings: string order is numeric order).
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.segments[mid]!.start <= h) lo = mid;
      else hi = mid - 1;
    }
    return this.segments[lo]!.shard;
  }

  /** The shard of a field value (a namespace name or a uid). */
  shardOfValue(value: string): number {
    return this.shardOfHash(fnv1a64Hex(value));
  }

  /** The shard of an object; a missing field hashes as `''`, as on the server. */
  shardOf(object: ShardableObject): number {
    const meta = object.metadata;
    return this.shardOfValue((this.field === 'object.metadata.uid' ? meta?.uid : meta?.namespace) ?? '');
  }

  /**
   * The selector of shards `indices`: their segments joined with `||`, adjacent ones merged.
   * @throws {RangeError} when `indices` is empty or holds a shard outside `[0, shards)`.
   */
  selectorFor(indices: readonly number[]): ShardSelector {
    if (indices.length === 0) throw new RangeError('selectorFor needs at least one shard index');
    for (const i of indices)
      if (!Number.isInteger(i) || i < 0 || i >= this.shards) throw new RangeError(`shard index ${i} is outside [0, ${this.shards})`);
    const wanted = new Set(indices);
    return ShardSelector.of(
      this.field,
      this.segments.filter((s) => wanted.has(s.shard)),
    );
  }

  /** How many of the distinct `values` fall in each shard, by shard index. */
  loads(values: Iterable<string>): number[] {
    const out = new Array<number>(this.shards).fill(0);
    for (const v of new Set(values)) out[this.shardOfValue(v)]!++;
    return out;
  }

  /**
   * Whether the map has drifted far enough from `values` to rebalance: some shard holds more
   * than `max(ceil(n/shards), floor(1.5·n/shards))` of the `n` distinct values. A map from
   * {@link ShardMap.balanced} holds at most `ceil(n/shards)` each, so it is not rebalanced again
   * until values come and go enough to pass the bound (hysteresis: no move per new namespace).
   */
  needsRebalance(values: Iterable<string>): boolean {
    const distinct = new Set(values);
    const loads = this.loads(distinct);
    return Math.max(...loads) > ShardMap.loadBound(distinct.size, this.shards);
  }

  /** The load above which {@link ShardMap.needsRebalance} says so: `max(ceil(n/shards), floor(1.5·n/shards))`. */
  static loadBound(n: number, shards: number): number {
    return Math.max(Math.ceil(n / shards), Math.floor((3 * n) / (2 * shards)));
  }

  /** Whether two maps cut the same field the same way (epochs aside). */
  sameCuts(other: ShardMap): boolean {
    return this.field === other.field && this.shards === other.shards && JSON.stringify(this.segments) === JSON.stringify(other.segments);
  }

  /** This map with another epoch. */
  withEpoch(epoch: number): ShardMap {
    return ShardMap.of(this.field, this.shards, epoch, this.segments);
  }

  /** The compact JSON text that {@link ShardMap.parse} reads back. */
  serialize(): string {
    return JSON.stringify({
      format: MAP_FORMAT,
      epoch: this.epoch,
      field: this.field,
      shards: this.shards,
      starts: this.segments.map((s) => s.start),
      owners: this.segments.map((s) => s.shard),
    });
  }
}

function hex(n: bigint): string {
  return n === TWO_64 ? SHARD_SPACE_END : '0x' + n.toString(16).padStart(16, '0');
}

function checkShards(shards: number): void {
  if (!Number.isInteger(shards) || shards < 1 || shards > 65536)
    throw new RangeError(`shard count must be an integer in [1, 65536], got ${shards}`);
}
