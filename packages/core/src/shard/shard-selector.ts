/**
 * Shard selectors: which slice of a collection one replica of a sharded operator handles.
 *
 * Kubernetes 1.36 added server-side sharded list and watch (KEP-5866, alpha, feature gate
 * `ShardedListAndWatch`): a list or watch with
 * `shardSelector=shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`
 * gets only the objects whose 64-bit FNV-1a hash of that field lies in `[start, end)`, and the
 * list says so in `metadata.shardInfo.selector`. A server without the gate ignores the parameter
 * and sends everything, so a client must then filter with the same hash: {@link ShardSelector}
 * parses, formats and matches exactly as the server does, so both filters agree object by object.
 *
 * Choose the field by what must stay together: `object.metadata.namespace` keeps a primary and
 * the secondaries in its namespace on one replica (so `getSecondaryResources` finds them all in
 * the replica's caches); `object.metadata.uid` spreads objects evenly whatever their namespace,
 * but the secondaries of a primary then land on other replicas.
 *
 * @module
 */
import { InvalidSelectorError } from '../selector/invalid-selector-error.js';
import { fnv1a64Hex } from './fnv1a64.js';

/**
 * The object fields kube-apiserver can shard on.
 *
 * @example
 * ```ts
 * import { ShardSelector, type ShardField } from '@kindex/core';
 *
 * // Namespace sharding keeps a primary and its secondaries (same namespace) on one replica.
 * const field: ShardField = 'object.metadata.namespace';
 * const quarters = ShardSelector.split(field, 4);
 * ```
 */
export type ShardField = 'object.metadata.uid' | 'object.metadata.namespace';

/**
 * A half-open range `[start, end)` of the 64-bit hash space, as the server writes bounds:
 * `0x` and 16 lowercase hex digits, or `0x10000000000000000` (2^64) for the end of the space.
 *
 * @example
 * ```ts
 * import { ShardSelector, type ShardRange } from '@kindex/core';
 *
 * // The upper half of the hash space, by uid (the end, 2^64, is exclusive).
 * const upper: ShardRange = { start: '0x8000000000000000', end: '0x10000000000000000' };
 * const selector = ShardSelector.of('object.metadata.uid', [upper]);
 * ```
 */
export interface ShardRange {
  readonly start: string;
  readonly end: string;
}

/**
 * The metadata a shard selector reads.
 *
 * @example
 * ```ts
 * import { ShardSelector, type ShardableObject } from '@kindex/core';
 *
 * // Any object with metadata will do: a cached primary, or a plain literal in a test.
 * const job: ShardableObject = { metadata: { namespace: 'team-a', uid: '6b1c…' } };
 * const mine = ShardSelector.split('object.metadata.namespace', 2)[0]!.matches(job);
 * ```
 */
export interface ShardableObject {
  readonly metadata?: { readonly uid?: string | undefined; readonly namespace?: string | undefined } | undefined;
}

/**
 * The exclusive end of the hash space, 2^64, the only 17-digit bound the server accepts.
 *
 * @example
 * ```ts
 * import { ShardSelector } from '@kindex/core';
 * import { SHARD_SPACE_END } from '@kindex/core/internal';
 *
 * // Everything: one range over the whole hash space.
 * const all = ShardSelector.of('object.metadata.namespace', [{ start: '0x0000000000000000', end: SHARD_SPACE_END }]);
 * ```
 */
export const SHARD_SPACE_END = '0x10000000000000000';
const FIELDS: readonly ShardField[] = ['object.metadata.uid', 'object.metadata.namespace'];
const TWO_64 = 1n << 64n;

/**
 * A parsed shard selector: one field and one or more hash ranges (ORed).
 *
 * @example
 * ```ts
 * import { ShardSelector } from '@kindex/core';
 *
 * const [first, second] = ShardSelector.split('object.metadata.namespace', 2) as [ShardSelector, ShardSelector];
 * first.toString(); // "shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')"
 * first.matches({ metadata: { namespace: 'default' } }) !== second.matches({ metadata: { namespace: 'default' } }); // true
 * ```
 * @see fnv1a64Hex for the hash.
 */
export class ShardSelector {
  /** The field hashed. */
  readonly field: ShardField;
  /** The ranges, sorted by start and with adjacent ones merged. */
  readonly ranges: readonly ShardRange[];
  readonly #text: string;

  private constructor(field: ShardField, ranges: readonly ShardRange[]) {
    this.field = field;
    this.ranges = Object.freeze(mergeRanges(ranges).map((r) => Object.freeze({ ...r })));
    this.#text = this.ranges.map((r) => `shardRange(${field}, '${r.start}', '${r.end}')`).join(' || ');
    Object.freeze(this);
  }

  /**
   * Parses the server's syntax: `shardRange(field, 'start', 'end')` terms joined by `||`
   * (parentheses and either quote allowed, as in CEL). Bounds need `0x` and exactly 16 lowercase
   * hex digits, or `0x10000000000000000`; start must be below end; every term the same field.
   * @throws {InvalidSelectorError} naming the offending part (`field` is `hexStart`, `hexEnd`,
   *   `fieldPath` or `expression`), worded as kube-apiserver words it.
   */
  static parse(text: string): ShardSelector {
    const parser = new Parser(text);
    const ranges = parser.parse();
    const field = ranges[0]!.field as ShardField;
    for (const r of ranges) {
      if (r.field !== field) {
        throw new InvalidSelectorError(text, `all shard ranges must use the same field, got "${field}" and "${r.field}"`, {
          field: 'fieldPath',
        });
      }
    }
    return new ShardSelector(
      field,
      ranges.map(({ start, end }) => ({ start, end })),
    );
  }

  /**
   * A selector from ranges (checked like parsed ones).
   * @throws {InvalidSelectorError} for a bad field, bound or empty range, or no range at all.
   */
  static of(field: ShardField, ranges: readonly ShardRange[]): ShardSelector {
    if (!FIELDS.includes(field)) {
      throw new InvalidSelectorError(String(field), unsupportedField(String(field)), { field: 'fieldPath' });
    }
    if (ranges.length === 0) throw new InvalidSelectorError('', 'a shard selector needs at least one range', { field: 'expression' });
    for (const r of ranges) {
      const where = `shardRange(${field}, '${r.start}', '${r.end}')`;
      checkBound(where, r.start, 'hexStart');
      checkBound(where, r.end, 'hexEnd');
      if (!hexLess(r.start, r.end)) {
        throw new InvalidSelectorError(where, `shard range start ${r.start} must be less than end ${r.end}`, { field: 'hexStart' });
      }
    }
    return new ShardSelector(field, ranges);
  }

  /**
   * The selector of shards `indices` out of `total` equal slices of the hash space (slice `i` is
   * `[floor(i·2^64/total), floor((i+1)·2^64/total))`), adjacent slices merged into one range.
   * @throws {RangeError} when `total` is not a positive integer or an index is outside `[0, total)`.
   */
  static forShards(field: ShardField, indices: readonly number[], total: number): ShardSelector {
    checkTotal(total);
    if (indices.length === 0) throw new RangeError('forShards needs at least one shard index');
    const bounds = shardBoundaries(total);
    const ranges = [...new Set(indices)].map((i) => {
      if (!Number.isInteger(i) || i < 0 || i >= total) throw new RangeError(`shard index ${i} is outside [0, ${total})`);
      return { start: bounds[i]!, end: bounds[i + 1]! };
    });
    return ShardSelector.of(field, ranges);
  }

  /** One selector per shard: `total` equal slices of the hash space, in order. */
  static split(field: ShardField, total: number): ShardSelector[] {
    checkTotal(total);
    return Array.from({ length: total }, (_, i) => ShardSelector.forShards(field, [i], total));
  }

  /** Whether an object's hash falls in one of the ranges. A missing field hashes as `''`, as on the server. */
  matches(object: ShardableObject): boolean {
    return this.matchesHash(fnv1a64Hex(valueOf(this.field, object)));
  }

  /** Whether a hash (16 lowercase hex digits, without `0x`) falls in one of the ranges. */
  matchesHash(hash: string): boolean {
    const h = '0x' + hash;
    for (const r of this.ranges) {
      // Bounds and hashes share one width (the 17-digit end aside), so string order is numeric order.
      if (h >= r.start && (r.end === SHARD_SPACE_END || h < r.end)) return true;
    }
    return false;
  }

  /** Whether two selectors select the same hashes of the same field. */
  equals(other: ShardSelector): boolean {
    return this.#text === other.#text;
  }

  /** The server's syntax, which {@link parse} reads back. */
  toString(): string {
    return this.#text;
  }
}

/**
 * The shard (`0` to `total - 1`) that an object falls in when the hash space is cut into `total`
 * equal slices, as {@link ShardSelector.split} cuts it.
 *
 * @example
 * ```ts
 * import { shardIndexOf } from '@kindex/core/internal';
 *
 * // Which of 4 shards (and so which shard Lease) serves the primaries of namespace "team-a".
 * const shard = shardIndexOf('object.metadata.namespace', { metadata: { namespace: 'team-a' } }, 4);
 * ```
 */
export function shardIndexOf(field: ShardField, object: ShardableObject, total: number): number {
  const bounds = shardBoundaries(total);
  const h = '0x' + fnv1a64Hex(valueOf(field, object));
  let lo = 0;
  let hi = total - 1;
  // The last slice i with bounds[i] <= h.
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (bounds[mid]! <= h) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const boundaryCache = new Map<number, readonly string[]>();

/** The `total + 1` bounds of `total` equal slices of the hash space. */
function shardBoundaries(total: number): readonly string[] {
  checkTotal(total);
  let bounds = boundaryCache.get(total);
  if (bounds === undefined) {
    const list: string[] = [];
    for (let i = 0; i < total; i++) list.push('0x' + ((BigInt(i) * TWO_64) / BigInt(total)).toString(16).padStart(16, '0'));
    list.push(SHARD_SPACE_END);
    bounds = Object.freeze(list);
    if (boundaryCache.size < 64) boundaryCache.set(total, bounds);
  }
  return bounds;
}

function checkTotal(total: number): void {
  if (!Number.isInteger(total) || total < 1 || total > 65536)
    throw new RangeError(`shard count must be an integer in [1, 65536], got ${total}`);
}

function valueOf(field: ShardField, object: ShardableObject): string {
  const meta = object.metadata;
  return (field === 'object.metadata.uid' ? meta?.uid : meta?.namespace) ?? '';
}

function hexLess(a: string, b: string): boolean {
  return a.length !== b.length ? a.length < b.length : a < b;
}

function mergeRanges(ranges: readonly ShardRange[]): ShardRange[] {
  const sorted = [...ranges].sort((a, b) => (hexLess(a.start, b.start) ? -1 : a.start === b.start ? 0 : 1));
  const out: ShardRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && !hexLess(last.end, r.start)) {
      if (hexLess(last.end, r.end)) out[out.length - 1] = { start: last.start, end: r.end };
    } else {
      out.push(r);
    }
  }
  return out;
}

function unsupportedField(path: string): string {
  return `unsupported field path "${path}"; supported: object.metadata.uid, object.metadata.namespace`;
}

function checkBound(selector: string, s: string, name: 'hexStart' | 'hexEnd'): void {
  const fail = (message: string): never => {
    throw new InvalidSelectorError(selector, message, { field: name });
  };
  if (!s.startsWith('0x')) fail(`${name} must have '0x' prefix, got "${s}"`);
  const hex = s.slice(2);
  if (hex === '') fail(`${name}: hex value is required after '0x'`);
  if (hex.length > 17) fail(`${name}: hex value too long (${hex.length} chars, max 17): "${hex}"`);
  for (const c of hex) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) fail(`${name}: invalid hex character "${c}" in "${s}"`);
  }
  if (hex.length === 17) {
    if (s !== SHARD_SPACE_END) fail(`${name}: 17-digit hex value must be '${SHARD_SPACE_END}' (2^64), got "${s}"`);
  } else if (hex.length !== 16) {
    fail(`${name} must be a 0x-prefixed 16-digit hex value, got "${s}" (did you mean "0x${hex.padStart(16, '0')}"?)`);
  }
}

type Token =
  | { readonly kind: 'ident'; readonly text: string; readonly at: number }
  | { readonly kind: 'string'; readonly text: string; readonly at: number }
  | { readonly kind: '(' | ')' | ',' | '.' | '||' | 'end'; readonly text: string; readonly at: number };

// A recursive-descent reader of the subset of CEL the server accepts: shardRange calls, ||, and
// parentheses. The server walks a real CEL parse tree; this accepts the same texts.
class Parser {
  readonly #tokens: Token[];
  #pos = 0;

  constructor(readonly text: string) {
    this.#tokens = this.#tokenize();
  }

  parse(): { field: string; start: string; end: string }[] {
    if (this.text.trim() === '') {
      this.#fail('empty shard selector is not allowed; omit the parameter for unfiltered lists', 'expression');
    }
    const ranges = this.#or();
    const t = this.#peek();
    if (t.kind !== 'end') this.#fail(`unexpected "${t.text}" at position ${t.at}`, 'expression');
    return ranges;
  }

  #or(): { field: string; start: string; end: string }[] {
    const out = this.#term();
    while (this.#peek().kind === '||') {
      this.#pos++;
      out.push(...this.#term());
    }
    return out;
  }

  #term(): { field: string; start: string; end: string }[] {
    const t = this.#next();
    if (t.kind === '(') {
      const inner = this.#or();
      this.#expect(')');
      return inner;
    }
    if (t.kind !== 'ident') this.#fail(`expected shardRange() call or || operator at position ${t.at}, got "${t.text}"`, 'expression');
    if (t.text !== 'shardRange') this.#fail(`unsupported function "${t.text}"; only shardRange() and || are allowed`, 'expression');
    this.#expect('(');
    const args: Token[][] = [[]];
    let depth = 0;
    for (;;) {
      const a = this.#next();
      if (a.kind === 'end') this.#fail(`expected ')' to close shardRange( at position ${t.at}`, 'expression');
      if (a.kind === '(') depth++;
      if (a.kind === ')') {
        if (depth === 0) break;
        depth--;
      }
      if (a.kind === ',' && depth === 0) args.push([]);
      else args[args.length - 1]!.push(a);
    }
    if (args.length !== 3) this.#fail(`shardRange() requires exactly 3 arguments, got ${args.length}`, 'expression');
    const field = this.#fieldPath(args[0]!);
    const start = this.#literal(args[1]!, 'hexStart');
    const end = this.#literal(args[2]!, 'hexEnd');
    const where = `shardRange(${field}, '${start}', '${end}')`;
    checkBound(where, start, 'hexStart');
    checkBound(where, end, 'hexEnd');
    if (!hexLess(start, end)) this.#fail(`shard range start ${start} must be less than end ${end}`, 'hexStart');
    return [{ field, start, end }];
  }

  #fieldPath(tokens: Token[]): string {
    const ok = tokens.length > 0 && tokens.every((t, i) => (i % 2 === 0 ? t.kind === 'ident' : t.kind === '.')) && tokens.length % 2 === 1;
    if (!ok) this.#fail('shardRange() first argument: expected field path (e.g. object.metadata.uid)', 'fieldPath');
    const path = tokens.map((t) => t.text).join('');
    if (!FIELDS.includes(path as ShardField)) this.#fail(unsupportedField(path), 'fieldPath');
    return path;
  }

  #literal(tokens: Token[], name: 'hexStart' | 'hexEnd'): string {
    if (tokens.length !== 1 || tokens[0]!.kind !== 'string') this.#fail(`${name} must be a string literal (e.g. '0xff')`, name);
    return tokens[0]!.text;
  }

  #peek(): Token {
    return this.#tokens[this.#pos]!;
  }

  #next(): Token {
    const t = this.#tokens[this.#pos]!;
    if (t.kind !== 'end') this.#pos++;
    return t;
  }

  #expect(kind: '(' | ')'): void {
    const t = this.#next();
    if (t.kind !== kind) this.#fail(`expected '${kind}' at position ${t.at}, got "${t.text}"`, 'expression');
  }

  #fail(message: string, field: string): never {
    throw new InvalidSelectorError(this.text, message, { field });
  }

  #tokenize(): Token[] {
    const s = this.text;
    const out: Token[] = [];
    let i = 0;
    while (i < s.length) {
      const c = s[i]!;
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
        i++;
      } else if (c === '(' || c === ')' || c === ',' || c === '.') {
        out.push({ kind: c, text: c, at: i });
        i++;
      } else if (c === '|' && s[i + 1] === '|') {
        out.push({ kind: '||', text: '||', at: i });
        i += 2;
      } else if (c === "'" || c === '"') {
        const close = s.indexOf(c, i + 1);
        if (close < 0) this.#fail(`unterminated string literal at position ${i}`, 'expression');
        const body = s.slice(i + 1, close);
        if (body.includes('\\')) this.#fail(`escape sequences are not supported in shard bounds (position ${i})`, 'expression');
        out.push({ kind: 'string', text: body, at: i });
        i = close + 1;
      } else if (/[A-Za-z_]/.test(c)) {
        let j = i + 1;
        while (j < s.length && /[A-Za-z0-9_]/.test(s[j]!)) j++;
        out.push({ kind: 'ident', text: s.slice(i, j), at: i });
        i = j;
      } else {
        this.#fail(`unexpected character "${c}" at position ${i}`, 'expression');
      }
    }
    out.push({ kind: 'end', text: '<end>', at: s.length });
    return out;
  }
}
