import { expect } from 'chai';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MetadataInterning } from './metadata-interning.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** 60 characters: long enough that `JSON.parse` makes a copy per object (V8 internalizes up to 10). */
const long = (tag: string): string => `${tag}-${'x'.repeat(59 - tag.length)}`;

function wire(i: number): string {
  return JSON.stringify({
    kind: long('Kind'),
    apiVersion: long('group/v1'),
    metadata: {
      name: `object-${i}`,
      namespace: long('namespace'),
      uid: `uid-${i}`,
      resourceVersion: String(i),
      creationTimestamp: long('2026-11-26T10:00:00Z'),
      labels: { app: 'web' },
      ownerReferences: [{ apiVersion: long('owner/v1'), kind: long('Owner'), name: long('owner'), uid: long('owner-uid') }],
    },
    data: { key: `value-${i}` },
  });
}

/** Heap bytes that `count` objects parsed from `wire` keep, with or without sharing. */
function retained(count: number, share: boolean): number {
  const texts = Array.from({ length: count }, (_, i) => wire(i));
  const interning = new MetadataInterning();
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept: unknown[] = [];
  for (const text of texts) {
    const object = JSON.parse(text) as Record<string, unknown>;
    if (share) interning.share(object);
    kept.push(object);
  }
  gc();
  const bytes = process.memoryUsage().heapUsed - before;
  expect(kept).to.have.length(count);
  return bytes;
}

describe('MetadataInterning', () => {
  it('keeps values, property order and hidden shape: the object reads as parsed', () => {
    const interning = new MetadataInterning();
    for (let i = 0; i < 3; i++) {
      const object = JSON.parse(wire(i)) as Record<string, unknown>;
      interning.share(object);
      expect(object).to.deep.equal(JSON.parse(wire(i)));
      expect(JSON.stringify(object)).to.equal(wire(i));
    }
  });

  it('drops the copies of repeated strings: objects sharing kind, apiVersion, namespace, timestamp and owner keep far fewer bytes', () => {
    const count = 20_000;
    const copies = retained(count, false);
    const shared = retained(count, true);
    // Eight 60-character strings per object (about 80 bytes each) are shared after the first one;
    // asking for seven leaves room for the heap's noise.
    expect(copies - shared).to.be.greaterThan(count * 7 * 60);
  });

  it('keeps each object its own values where they differ from the previous object', () => {
    const interning = new MetadataInterning();
    const a = { metadata: { name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'Owner', name: 'one', uid: 'u1' }] } };
    const b = { metadata: { name: 'b', ownerReferences: [{ apiVersion: 'v1', kind: 'Owner', name: 'two', uid: 'u2' }] } };
    const c = {
      metadata: { name: 'c', namespace: 'other', ownerReferences: [{ apiVersion: 'v1', kind: 'Owner', name: 'one', uid: 'u2' }] },
    };
    for (const o of [a, b, c]) interning.share(o);
    expect(a.metadata.ownerReferences[0]!.name).to.equal('one');
    expect(b.metadata.ownerReferences[0]!.name).to.equal('two');
    expect(c.metadata.ownerReferences[0]!.name).to.equal('one');
    expect(c.metadata.namespace).to.equal('other');
  });

  it('leaves frozen objects, and objects without metadata or with odd fields, as they are', () => {
    const interning = new MetadataInterning();
    interning.share({
      kind: 'A',
      metadata: { creationTimestamp: 't', ownerReferences: [{ uid: 'u', name: 'n', kind: 'k', apiVersion: 'v' }] },
    });
    const frozen = Object.freeze({ kind: 'A', metadata: Object.freeze({ creationTimestamp: 't' }) });
    expect(() => interning.share(frozen)).not.to.throw();
    const frozenMeta = { kind: 'A', metadata: Object.freeze({ creationTimestamp: 't', ownerReferences: Object.freeze([]) }) };
    expect(() => interning.share(frozenMeta)).not.to.throw();
    const odd = { kind: 7, apiVersion: null, metadata: { namespace: 3, creationTimestamp: {}, ownerReferences: [null, 'x'] } };
    interning.share(odd);
    expect(odd).to.deep.equal({
      kind: 7,
      apiVersion: null,
      metadata: { namespace: 3, creationTimestamp: {}, ownerReferences: [null, 'x'] },
    });
    interning.share({ kind: 'A' });
    interning.share({ kind: 'A', metadata: null });
  });
});
