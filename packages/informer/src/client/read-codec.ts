import type { KubeCodec } from './codec.js';
import { cborCodec } from './cbor-codec.js';
import { jsonCodec } from './json-codec.js';
import { metadataCodec } from './metadata-codec.js';

/** The wire formats a reflector can read lists and watches in. */
const WIRES: Readonly<Record<string, KubeCodec>> = { json: jsonCodec, cbor: cborCodec };

/** Where a `wire` option comes from, for {@link readCodec}. */
export interface WireChoice {
  /** The option's value as given: `'json'`, `'cbor'` or unset (JSON); anything else is rejected. */
  readonly wire: unknown;
  /** What the option belongs to, named in the error (`Reflector options`). */
  readonly owner: string;
}

/**
 * The codec that reads `type`'s objects, lists and watches: {@link metadataCodec} for a
 * metadata-only kind, else the `wire` format (JSON when there is no choice or it is unset). The
 * reflector and `KubeClient`'s reads both take their codec from here.
 *
 * A metadata-only kind reads PartialObjectMetadata in JSON whatever the wire: no CBOR form of it
 * is asked for. Its `wire` is still checked, so a misspelt value fails the same for every kind.
 *
 * @throws {TypeError} naming the owner, the value and the values `wire` takes, for any other value.
 */
export function readCodec(type: { readonly metadataOnly?: boolean }, choice?: WireChoice): KubeCodec {
  const wire = choice === undefined ? jsonCodec : wireCodec(choice);
  return type.metadataOnly === true ? metadataCodec : wire;
}

function wireCodec({ wire, owner }: WireChoice): KubeCodec {
  if (wire === undefined) return jsonCodec;
  const codec = typeof wire === 'string' && Object.hasOwn(WIRES, wire) ? WIRES[wire] : undefined;
  if (codec === undefined) throw new TypeError(`${owner}: wire is ${JSON.stringify(wire)}; set it to 'json' (the default) or 'cbor'`);
  return codec;
}
