import { expect } from 'chai';
import { Set as ISet } from 'immutable';
import { ResourceID, InvalidResourceError } from '../index.js';

describe('ResourceID', () => {
  it('keys namespaced objects as namespace/name and cluster-scoped ones as name', () => {
    expect(ResourceID.of('a', 'ns').key).to.equal('ns/a');
    expect(ResourceID.of('a').key).to.equal('a');
    expect(ResourceID.of('a', '').namespace).to.equal(undefined);
  });

  it('round-trips through parse', () => {
    expect(ResourceID.parse('ns/a').equals(ResourceID.of('a', 'ns'))).to.equal(true);
    expect(ResourceID.parse('a').namespace).to.equal(undefined);
  });

  it('reads the namespace of a key as parse does, without an ID', () => {
    for (const key of ['ns/a', 'a', 'ns/a/b']) expect(ResourceID.namespaceOfKey(key)).to.equal(ResourceID.parse(key).namespace);
    expect(ResourceID.namespaceOfKey('ns/a')).to.equal('ns');
  });

  it('has value equality inside immutable collections', () => {
    const s = ISet([ResourceID.of('a', 'ns'), ResourceID.of('a', 'ns'), ResourceID.of('b', 'ns')]);
    expect(s.size).to.equal(2);
    expect(s.has(ResourceID.of('b', 'ns'))).to.equal(true);
  });

  it('names the missing field of a bad object', () => {
    expect(() => ResourceID.fromResource({}))
      .to.throw(InvalidResourceError)
      .with.property('field', 'metadata');
    expect(() => ResourceID.fromResource({ metadata: { namespace: 'x' } }))
      .to.throw(InvalidResourceError)
      .with.property('field', 'metadata.name');
    expect(() => ResourceID.fromResource({ metadata: { name: 'x', namespace: 3 as never } })).to.throw(/object x: metadata.namespace/);
    expect(() => ResourceID.keyOfResource({ metadata: { name: 'd', namespace: 5 as never } })).to.throw(
      InvalidResourceError,
      /metadata.namespace/,
    );
  });
});
