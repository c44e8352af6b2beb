// Kubernetes' CBOR as kube-apiserver 1.36 writes and reads it with the CBORServingAndStorage
// feature gate (k8s.io/apimachinery/pkg/runtime/serializer/cbor): every body starts with the head
// of the self-described CBOR tag 55799 (0xd9d9f7, its magic number), and every string, map keys
// included, is a byte string (fxamacker's StringToByteString), floats in their shortest exact
// form. A watch answers `application/cbor-seq`: one tagged `{object, type}` map per event, its
// object tagged again. Bodies sent to it may use text strings and may leave the tag out.

import { decode, decodeFirst, encode, Tagged, Token, Tokenizer, Type, type DecodeOptions, type EncodeOptions } from 'cborg';

/** The self-described CBOR tag, kube-apiserver's magic number for CBOR data. */
const SELF_DESCRIBED = 55799;

const utf8 = new TextEncoder();
const utf8Text = new TextDecoder('utf-8', { fatal: true });

// cborg's default map order (length first, then bytes: RFC 7049's canonical order) is Go's
// SortBytewiseLexical for keys that are all byte strings.
const ENCODE: EncodeOptions = {
  typeEncoders: { string: (s: unknown) => [new Token(Type.bytes, utf8.encode(s as string))] },
};

/** The CBOR body of a JSON value, as kube-apiserver writes it. */
export function encodeCbor(value: unknown): Uint8Array {
  return encode(new Tagged(SELF_DESCRIBED, value), ENCODE);
}

/** One `application/cbor-seq` watch frame of a JSON watch line `{"type":...,"object":...}`. */
export function encodeCborWatchLine(line: string): Uint8Array {
  const event = JSON.parse(line) as { type: string; object: unknown };
  return encode(new Tagged(SELF_DESCRIBED, { type: event.type, object: new Tagged(SELF_DESCRIBED, event.object) }), ENCODE);
}

// Byte strings read as text, as kube-apiserver reads them into unstructured objects.
class ByteStringsAsText extends Tokenizer {
  override next(): Token {
    const token = super.next();
    if (!Type.equals(token.type, Type.bytes)) return token;
    return new Token(Type.string, utf8Text.decode(token.value as Uint8Array), token.encodedLength);
  }
}

const TAGS: NonNullable<DecodeOptions['tags']> = [];
TAGS[SELF_DESCRIBED] = (decodeInner: () => unknown) => decodeInner();

/**
 * The JSON value of a CBOR body.
 *
 * @throws {Error} for bytes that are not one well-formed CBOR item (cborg's message).
 */
export function decodeCbor(bytes: Uint8Array): unknown {
  return decode(bytes, { tags: TAGS, tokenizer: new ByteStringsAsText(bytes, {}) });
}

/** The items of a CBOR sequence (`application/cbor-seq`, RFC 8742): a CBOR watch's events. */
export function decodeCborSequence(bytes: Uint8Array): unknown[] {
  const items: unknown[] = [];
  for (let rest = bytes; rest.length > 0;) {
    const [item, remainder] = decodeFirst(rest, { tags: TAGS, tokenizer: new ByteStringsAsText(rest, {}) }) as [unknown, Uint8Array];
    items.push(item);
    rest = remainder;
  }
  return items;
}
