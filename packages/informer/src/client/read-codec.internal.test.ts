// Which codec reads a kind: the reflector's (with its `wire` option) and KubeClient's (without).
import { expect } from 'chai';
import { cborCodec } from './cbor-codec.js';
import { jsonCodec } from './json-codec.js';
import { metadataCodec } from './metadata-codec.js';
import { readCodec } from './read-codec.js';

const OWNER = 'Reflector options';

describe('readCodec', () => {
  it('reads JSON without a wire choice or with wire unset, and the chosen wire otherwise', () => {
    expect(readCodec({})).to.equal(jsonCodec);
    expect(readCodec({}, { wire: undefined, owner: OWNER })).to.equal(jsonCodec);
    expect(readCodec({ metadataOnly: false }, { wire: 'json', owner: OWNER })).to.equal(jsonCodec);
    expect(readCodec({}, { wire: 'cbor', owner: OWNER })).to.equal(cborCodec);
  });

  it('reads a metadata-only kind as PartialObjectMetadata in JSON, whatever the wire', () => {
    expect(readCodec({ metadataOnly: true })).to.equal(metadataCodec);
    for (const wire of [undefined, 'json', 'cbor'])
      expect(readCodec({ metadataOnly: true }, { wire, owner: OWNER }), String(wire)).to.equal(metadataCodec);
  });

  it('rejects any other wire, for every kind, naming the owner, the value and the choices', () => {
    for (const type of [{}, { metadataOnly: true }]) {
      expect(() => readCodec(type, { wire: 'protobuf', owner: OWNER })).to.throw(
        TypeError,
        `Reflector options: wire is "protobuf"; set it to 'json' (the default) or 'cbor'`,
      );
      expect(() => readCodec(type, { wire: 'toString', owner: 'X' })).to.throw(TypeError, `X: wire is "toString";`);
      expect(() => readCodec(type, { wire: 1, owner: 'X' })).to.throw(TypeError, `X: wire is 1;`);
    }
  });
});
