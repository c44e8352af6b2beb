import type { KubeCodec } from './codec.js';
import { cborCodec } from './cbor-codec.js';
import { jsonCodec } from './json-codec.js';

/** The wire formats a reflector can read lists and watches in. */
const WIRES: Readonly<Record<string, KubeCodec>> = { json: jsonCodec, cbor: cborCodec };

/**
 * The codec of a `wire` option; JSON when unset.
 *
 * @param owner - what the option belongs to, named in the error (`Reflector options`).
 * @throws {TypeError} naming the option and the values it takes, for any other value.
 */
export function wireCodec(wire: unknown, owner: string): KubeCodec {
  if (wire === undefined) return jsonCodec;
  const codec = typeof wire === 'string' && Object.hasOwn(WIRES, wire) ? WIRES[wire] : undefined;
  if (codec === undefined) throw new TypeError(`${owner}: wire is ${JSON.stringify(wire)}; set it to 'json' (the default) or 'cbor'`);
  return codec;
}
