// Kubernetes' CBOR as kube-apiserver writes it (apimachinery runtime/serializer/cbor): the
// self-described CBOR tag 55799 head (0xd9d9f7) first, then the object with every string, map key
// included, as a byte string (major type 2, fxamacker's StringToByteString), for the decoders'
// measurement to read the bytes clients really get.
import { encode, Token, Type } from 'cborg';

const SELF_DESCRIBED = Uint8Array.from([0xd9, 0xd9, 0xf7]);
const utf8 = new TextEncoder();

/** One object as kube-apiserver's CBOR serializer writes it. */
export function kubeCbor(value: unknown): Buffer {
  const body = encode(value, { typeEncoders: { string: (s: unknown) => [new Token(Type.bytes, utf8.encode(s as string))] } });
  return Buffer.concat([SELF_DESCRIBED, body]);
}

/** The same value with strings as text strings: what a CBOR decoder reads at its best. */
export function textCbor(value: unknown): Buffer {
  return Buffer.concat([SELF_DESCRIBED, encode(value)]);
}
