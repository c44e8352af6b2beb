// FNV-1a, 64 bits, over the UTF-8 bytes of a string: the hash kube-apiserver's shardRange()
// applies to object.metadata.uid or object.metadata.namespace (k8s.io/apimachinery/pkg/sharding,
// Go's hash/fnv New64a, formatted %016x).
//
// It runs once per object an informer receives, so it works on two 32-bit halves instead of
// BigInt (about 20 times slower): every intermediate stays below 2^53, where doubles are exact.

const OFFSET_HI = 0xcbf29ce4;
const OFFSET_LO = 0x84222325;
// The prime is 2^40 + 0x1b3: multiplying by it is a multiply by 0x1b3 plus a shift by 40.
const PRIME_LOW = 0x1b3;
const TWO_32 = 4294967296;

const utf8 = new TextEncoder();

/**
 * The 64-bit FNV-1a hash of a string's UTF-8 bytes, as 16 lowercase hex digits (the form the API
 * server compares against shardRange bounds).
 *
 * @example
 * ```ts
 * import { fnv1a64Hex } from '@kindex/core/internal';
 *
 * // Which half of the hash space the namespace "default" falls in (the server hashes the same bytes).
 * const inFirstHalf = '0x' + fnv1a64Hex('default') < '0x8000000000000000';
 * ```
 */
export function fnv1a64Hex(value: string): string {
  let hi = OFFSET_HI;
  let lo = OFFSET_LO;
  const n = value.length;
  let ascii = true;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    for (let i = 0; i < n; i++) {
      lo = (lo ^ value.charCodeAt(i)) >>> 0;
      const low = lo * PRIME_LOW;
      hi = (hi * PRIME_LOW + Math.floor(low / TWO_32) + (lo << 8)) >>> 0;
      lo = low >>> 0;
    }
  } else {
    for (const byte of utf8.encode(value)) {
      lo = (lo ^ byte) >>> 0;
      const low = lo * PRIME_LOW;
      hi = (hi * PRIME_LOW + Math.floor(low / TWO_32) + (lo << 8)) >>> 0;
      lo = low >>> 0;
    }
  }
  return hex8(hi) + hex8(lo);
}

function hex8(n: number): string {
  const s = n.toString(16);
  return s.length === 8 ? s : '00000000'.slice(s.length) + s;
}
