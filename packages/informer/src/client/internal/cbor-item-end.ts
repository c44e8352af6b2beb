/** Tags 21-23: a byte string that JSON carries as base64url, base64 or base16 text (Go's []byte). */
const EXPECTED_LATER_ENCODING_MIN = 21;
const EXPECTED_LATER_ENCODING_MAX = 23;

/**
 * Where the CBOR data item starting at `start` ends, without decoding it: the frame boundary of a
 * CBOR sequence (RFC 8742, `application/cbor-seq`), whose items carry no length prefix or
 * separator. Returns -1 when `bytes` ends before the item does.
 *
 * With `textStrings`, it also turns every byte string head into a text string head, in place
 * (major type 2 to 3: one bit; the length and content stay): kube-apiserver writes every string
 * as a byte string, and a decoder reads text strings several times faster, straight into JS
 * strings. Byte strings under tags 21-23 (Go's []byte) stay bytes. A string that is not UTF-8
 * decodes with replacement characters, as JSON text would.
 *
 * @throws {Error} for bytes that cannot start or continue a well-formed item (a reserved
 * additional-information value, a misplaced break): a sequence cannot be resynchronised after that.
 */
export function cborItemEnd(bytes: Uint8Array, start: number, textStrings = false): number {
  // Items still to skip at each open container level; an indefinite container counts -1.
  const pending: number[] = [];
  let pos = start;
  let remaining = 1;
  let taggedBytes = false;
  for (;;) {
    if (remaining === 0) {
      if (pending.length === 0) return pos;
      remaining = pending.pop()!;
      continue;
    }
    if (pos >= bytes.length) return -1;
    const head = pos;
    const initial = bytes[pos++]!;
    if (initial === 0xff) {
      if (remaining !== -1) throw new Error(`CBOR break code outside an indefinite-length item at byte ${pos - 1}`);
      remaining = 0;
      continue;
    }
    const major = initial >> 5;
    const info = initial & 0x1f;
    let argument: number;
    if (info < 24) argument = info;
    else if (info <= 27) {
      const size = 1 << (info - 24);
      if (pos + size > bytes.length) return -1;
      argument = 0;
      // Lengths past 2^53 cannot be in a buffer anyway; reading them as floats is exact enough.
      for (let i = 0; i < size; i++) argument = argument * 256 + bytes[pos + i]!;
      pos += size;
    } else if (info === 31 && major >= 2 && major <= 5) argument = -1;
    else throw new Error(`CBOR reserved additional information ${info} (major type ${major}) at byte ${pos - 1}`);
    if (remaining > 0) remaining--;
    if (major === 2 && textStrings && !taggedBytes) bytes[head] = initial | 0x20;
    taggedBytes = major === 6 && argument >= EXPECTED_LATER_ENCODING_MIN && argument <= EXPECTED_LATER_ENCODING_MAX;
    if (major === 2 || major === 3) {
      if (argument === -1) {
        pending.push(remaining);
        remaining = -1; // chunks until the break
      } else {
        pos += argument;
        if (pos > bytes.length) return -1;
      }
    } else if (major === 4 || major === 5) {
      pending.push(remaining);
      remaining = argument === -1 ? -1 : argument * (major === 5 ? 2 : 1);
    } else if (major === 6) {
      pending.push(remaining);
      remaining = 1; // the tagged item
    }
  }
}
