import { expect } from 'chai';
import fc from 'fast-check';
import { ResourceID, type ObjectMeta } from '@kindex/core';
import { CompactRecords, PAGE_SIZE, type RecordMeta } from './compact-records.js';

// White-box: CompactRecords is internal to BoundedStore. The model is a Map of the metadata as given.

type Meta = ObjectMeta & { readonly name: string };

const NAMESPACES = ['', 'default', 'team-a'];
const FINALIZERS = [[], ['example.com/finalizer'], ['example.com/finalizer', 'other.io/cleanup'], ['other.io/cleanup']];

const metaArb = (name: string, namespace: string): fc.Arbitrary<Meta> =>
  fc
    .record({
      resourceVersion: fc.oneof(
        fc.constant(undefined),
        fc.constant(''),
        fc.nat().map(String),
        fc.constantFrom('9007199254740993', '007', '12a', 'opaque/v1', '9007199254740991'),
      ),
      uid: fc.oneof(
        fc.constant(undefined),
        fc.constant(''),
        fc.uuid(),
        fc.constantFrom(
          'uid-1',
          'ABCDEF00-0000-4000-8000-000000000000',
          'gbb09cdc-0101-49cd-a040-3a7f9ddd8318',
          '0bb09cdc00101-49cd-a040-3a7f9ddd8318',
          '0bb09cdc-0101-49cd-a040-3a7f9ddd831',
        ),
      ),
      generation: fc.oneof(fc.constant(undefined), fc.nat(), fc.constantFrom(0xfffffffe, 0xffffffff, 2 ** 40, 1.5)),
      finalizers: fc.constantFrom(...FINALIZERS),
    })
    .map((m) => ({
      name,
      ...(namespace !== '' ? { namespace } : {}),
      ...(m.resourceVersion !== undefined ? { resourceVersion: m.resourceVersion } : {}),
      ...(m.uid !== undefined ? { uid: m.uid } : {}),
      ...(m.generation !== undefined ? { generation: m.generation } : {}),
      ...(m.finalizers.length > 0 ? { finalizers: m.finalizers } : {}),
    }));

type Op =
  | { kind: 'put'; meta: Meta }
  | { kind: 'remove'; name: string; namespace: string }
  | { kind: 'stamp'; name: string; namespace: string; tick: number }
  | { kind: 'clear' };

const nameArb = fc.integer({ min: 0, max: 2_500 }).map((n) => `obj-${n}`);
const nsArb = fc.constantFrom(...NAMESPACES);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.tuple(nameArb, nsArb).chain(([name, ns]) => metaArb(name, ns).map((meta) => ({ kind: 'put' as const, meta }))),
  },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('remove' as const), name: nameArb, namespace: nsArb }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('stamp' as const),
      name: nameArb,
      namespace: nsArb,
      tick: fc.integer({ min: 1, max: 0xffffffff }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

/** What a record should give back for `meta`: empty strings dropped, as the minimal objects have it. */
function expected(meta: Meta): RecordMeta {
  return {
    name: meta.name,
    ...(meta.namespace ? { namespace: meta.namespace } : {}),
    ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
    ...(meta.uid ? { uid: meta.uid } : {}),
    ...(meta.generation !== undefined ? { generation: meta.generation } : {}),
    ...(meta.finalizers !== undefined && meta.finalizers.length > 0 ? { finalizers: meta.finalizers } : {}),
  };
}

describe('CompactRecords (white-box)', () => {
  it('gives back what a Map of the metadata gives, under random puts, overwrites, removes, reconcile stamps and clears', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { maxLength: 400 }),
        fc.array(fc.tuple(nameArb, nsArb), { minLength: 1, maxLength: 20 }),
        (ops, probes) => {
          const records = new CompactRecords();
          const model = new Map<string, Meta>();
          // A new object has no stamp; an overwrite keeps it; a removed object's goes with it.
          const stamps = new Map<string, number>();
          const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;
          for (const op of ops) {
            if (op.kind === 'put') {
              records.put(op.meta);
              const key = keyOf(op.meta.namespace ?? '', op.meta.name);
              if (!model.has(key)) stamps.set(key, 0);
              model.set(key, op.meta);
            } else if (op.kind === 'stamp') {
              const slot = records.find(op.namespace, op.name);
              if (slot >= 0) {
                records.setStamp(slot, op.tick);
                stamps.set(keyOf(op.namespace, op.name), op.tick);
              }
            } else if (op.kind === 'remove') {
              const slot = records.find(op.namespace, op.name);
              expect(slot >= 0).to.equal(model.has(keyOf(op.namespace, op.name)));
              if (slot >= 0) records.remove(slot);
              model.delete(keyOf(op.namespace, op.name));
            } else {
              records.clear();
              model.clear();
            }
            expect(records.size).to.equal(model.size);
          }
          for (const [name, namespace] of probes) {
            const slot = records.find(namespace, name);
            expect(slot >= 0).to.equal(model.has(keyOf(namespace, name)));
            // The store key and the ID name the same record.
            expect(records.findKey(ResourceID.keyOf(name, namespace))).to.equal(slot);
            expect(records.findKey(ResourceID.of(name, namespace))).to.equal(slot);
          }
          const seen = new Map<string, RecordMeta>();
          const pages = new Set<number>();
          records.forEach((slot) => {
            pages.add(Math.floor(slot / PAGE_SIZE));
            const meta = records.metaOf(slot);
            expect(records.nameOf(slot)).to.equal(meta.name);
            expect(records.namespaceOf(slot)).to.equal(meta.namespace ?? '');
            expect(records.resourceVersionOf(slot)).to.equal(meta.resourceVersion ?? '');
            seen.set(keyOf(meta.namespace ?? '', meta.name), meta);
            expect(records.stampOf(slot)).to.equal(stamps.get(keyOf(meta.namespace ?? '', meta.name)));
          });
          expect(seen.size).to.equal(model.size);
          expect(records.pagesHeld, 'pages held: those with a record').to.equal(pages.size);
          for (const [key, meta] of model) {
            expect(seen.get(key), key).to.deep.equal(expected(meta));
            expect(records.find(meta.namespace ?? '', meta.name)).to.be.at.least(0);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('frees a page whose records are all removed, and makes it again when free slots run out', () => {
    const records = new CompactRecords();
    const count = PAGE_SIZE * 3;
    const slots: number[] = [];
    for (let i = 0; i < count; i++) slots.push(records.put({ name: `n-${i}`, resourceVersion: String(i + 1) }));
    expect(records.pagesHeld).to.equal(3);
    // Empty the middle page, and all but one record of the first.
    for (let i = PAGE_SIZE; i < 2 * PAGE_SIZE; i++) records.remove(slots[i]!);
    for (let i = 1; i < PAGE_SIZE; i++) records.remove(slots[i]!);
    expect(records.pagesHeld).to.equal(2);
    expect(records.size).to.equal(PAGE_SIZE + 1);
    // New records fill the first page's free slots, then the freed page, before any new page.
    for (let i = 0; i < 2 * PAGE_SIZE - 1; i++) records.put({ name: `m-${i}`, resourceVersion: '1' });
    expect(records.pagesHeld).to.equal(3);
    records.put({ name: 'one-more' });
    expect(records.pagesHeld).to.equal(4);
    for (let i = 2 * PAGE_SIZE; i < count; i++) expect(records.find('', `n-${i}`)).to.equal(slots[i]);
    expect(records.resourceVersionOf(records.find('', 'n-0'))).to.equal('1');
  });

  it('finds every record through table growth and removals across several pages', () => {
    const records = new CompactRecords();
    const count = PAGE_SIZE * 3 + 17;
    for (let i = 0; i < count; i++) records.put({ name: `n-${i}`, namespace: `ns-${i % 7}`, resourceVersion: String(i + 1) });
    for (let i = 0; i < count; i += 2) records.remove(records.find(`ns-${i % 7}`, `n-${i}`));
    for (let i = 0; i < count; i++) {
      const slot = records.find(`ns-${i % 7}`, `n-${i}`);
      if (i % 2 === 0) expect(slot, `n-${i}`).to.equal(-1);
      else expect(records.resourceVersionOf(slot)).to.equal(String(i + 1));
    }
    expect(records.size).to.equal(Math.floor(count / 2));
  });
});
