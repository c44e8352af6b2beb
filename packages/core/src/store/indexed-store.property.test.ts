import { expect } from 'chai';
import fc from 'fast-check';
import { IndexedStore, ResourceID, type Indexer, type KubernetesObject, type StoreSnapshot } from '../index.js';

interface Thing extends KubernetesObject {
  data?: { v: number };
}

const objectArb: fc.Arbitrary<Thing> = fc
  .record({
    name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
    namespace: fc.constantFrom(undefined, 'n1', 'n2'),
    resourceVersion: fc.option(fc.constantFrom('1', '2', '3'), { nil: undefined }),
    labels: fc.dictionary(fc.constantFrom('app', 'tier', 'bad'), fc.constantFrom('x', 'y', 'z'), { maxKeys: 3 }),
    v: fc.integer({ min: 0, max: 2 }),
  })
  .map(({ name, namespace, resourceVersion, labels, v }) => ({
    metadata: {
      name,
      ...(namespace === undefined ? {} : { namespace }),
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
      labels,
    },
    data: { v },
  }));

/** Indexers of every shape: one value, many values (with duplicates), none, and a thrower. */
const INDEXERS: Record<string, Indexer<Thing>> = {
  app: (o) => (o.metadata?.labels?.['app'] ? [o.metadata.labels['app']] : []),
  labels: (o) => Object.entries(o.metadata?.labels ?? {}).flatMap(([k, v]) => [`${k}=${v}`, `${k}=${v}`]),
  fragile: (o) => {
    if (o.metadata?.labels?.['bad'] !== undefined) throw new Error('bad label');
    return [o.metadata?.namespace ?? '<cluster>', String(o.data?.v)];
  },
};

type Op =
  | { kind: 'upsert'; obj: Thing }
  | { kind: 'delete'; name: string; namespace: string | undefined }
  | { kind: 'replace'; objs: Thing[] }
  | { kind: 'addIndexer'; name: string }
  | { kind: 'clear' }
  | { kind: 'batch'; ops: Op[] };

const writeArb: fc.Arbitrary<Op> = fc.oneof(
  objectArb.map((obj): Op => ({ kind: 'upsert', obj })),
  fc
    .record({ name: fc.constantFrom('a', 'b', 'c', 'x'), namespace: fc.constantFrom(undefined, 'n1', 'n2') })
    .map(({ name, namespace }): Op => ({ kind: 'delete', name, namespace })),
);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.array(writeArb, { maxLength: 6 }).map((ops): Op => ({ kind: 'batch', ops })) },
  { weight: 6, arbitrary: objectArb.map((obj): Op => ({ kind: 'upsert', obj })) },
  {
    weight: 3,
    arbitrary: fc
      .record({ name: fc.constantFrom('a', 'b', 'c', 'x'), namespace: fc.constantFrom(undefined, 'n1', 'n2') })
      .map(({ name, namespace }): Op => ({ kind: 'delete', name, namespace })),
  },
  { weight: 2, arbitrary: fc.array(objectArb, { maxLength: 8 }).map((objs): Op => ({ kind: 'replace', objs })) },
  { weight: 2, arbitrary: fc.constantFrom(...Object.keys(INDEXERS)).map((name): Op => ({ kind: 'addIndexer', name })) },
  { weight: 1, arbitrary: fc.constant<Op>({ kind: 'clear' }) },
);

/** JSON with sorted keys: equal content, equal text, whatever the key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/** Everything a snapshot shows, as plain sorted data. */
function describeSnapshot(snap: StoreSnapshot<Thing>): unknown {
  const keys = snap.keys().sort();
  return {
    size: snap.size,
    keys,
    objects: keys.map((k) => JSON.stringify(snap.get(k))),
    resourceVersion: snap.resourceVersion,
    indexes: snap
      .indexNames()
      .sort()
      .map((name) => [
        name,
        snap
          .indexValues(name)
          .sort()
          .map((value) => [value, [...snap.indexKeys(name, value)].sort()]),
      ]),
  };
}

/** The indexes recomputed from scratch from the objects alone. */
function recomputed(snap: StoreSnapshot<Thing>, names: readonly string[]): unknown {
  return [...names].sort().map((name) => {
    const index = new Map<string, Set<string>>();
    for (const obj of snap.list()) {
      let values: readonly string[];
      try {
        values = INDEXERS[name]!(obj);
      } catch {
        continue;
      }
      for (const value of values) {
        const set = index.get(value) ?? new Set<string>();
        set.add(ResourceID.keyOfResource(obj));
        index.set(value, set);
      }
    }
    return [name, [...index.keys()].sort().map((value) => [value, [...index.get(value)!].sort()])];
  });
}

describe('IndexedStore (properties)', () => {
  it('keeps every index equal to the index recomputed from its objects, and old snapshots unchanged', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 30 }), (ops) => {
        const store = new IndexedStore<Thing>();
        store.errors$.subscribe(() => undefined);
        const added: string[] = [];
        const taken: [StoreSnapshot<Thing>, unknown][] = [];
        for (const op of ops) {
          if (op.kind === 'upsert') store.upsert(structuredClone(op.obj));
          else if (op.kind === 'delete') store.delete(ResourceID.of(op.name, op.namespace));
          else if (op.kind === 'replace') store.replace(op.objs.map((o) => structuredClone(o)));
          else if (op.kind === 'clear') store.clear();
          else if (op.kind === 'batch') {
            store.batch((w) => {
              for (const o of op.ops) {
                if (o.kind === 'upsert') w.upsert(structuredClone(o.obj));
                else if (o.kind === 'delete') w.delete(ResourceID.of(o.name, o.namespace));
              }
            });
          } else if (!added.includes(op.name)) {
            store.addIndexer(op.name, INDEXERS[op.name]!);
            added.push(op.name);
          }
          const snap = store.snapshot();
          const seen = describeSnapshot(snap) as { indexes: unknown; keys: string[]; size: number };
          expect(seen.indexes).to.deep.equal(recomputed(snap, added));
          expect(seen.size).to.equal(seen.keys.length);
          for (const ns of ['n1', 'n2']) {
            expect(
              snap
                .list(ns)
                .map((o) => ResourceID.keyOfResource(o))
                .sort(),
            ).to.deep.equal(seen.keys.filter((k) => k.startsWith(`${ns}/`)));
          }
          taken.push([snap, seen]);
        }
        for (const [snap, seen] of taken) expect(describeSnapshot(snap)).to.deep.equal(seen);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps held snapshots unchanged while others are released, and records nothing once all are released', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(opArb, fc.constantFrom('take', 'release', 'none')), { maxLength: 30 }), (steps) => {
        const store = new IndexedStore<Thing>({ indexers: { app: INDEXERS['app']! } });
        store.errors$.subscribe(() => undefined);
        const held: [StoreSnapshot<Thing>, unknown][] = [];
        for (const [op, action] of steps) {
          if (op.kind === 'upsert') store.upsert(structuredClone(op.obj));
          else if (op.kind === 'delete') store.delete(ResourceID.of(op.name, op.namespace));
          else if (op.kind === 'replace') store.replace(op.objs.map((o) => structuredClone(o)));
          else if (op.kind === 'clear') store.clear();
          if (action === 'take') {
            const snap = store.snapshot();
            held.push([snap, describeSnapshot(snap)]);
          } else if (action === 'release' && held.length > 0) {
            held.shift()![0].release();
          }
          for (const [snap, seen] of held) expect(describeSnapshot(snap)).to.deep.equal(seen);
        }
        expect(store.openSnapshots).to.equal(held.length);
        for (const [snap] of held) snap.release();
        expect(store.openSnapshots).to.equal(0);
      }),
      { numRuns: 300 },
    );
  });

  it('returns from replace exactly the changes between the old and the new content', () => {
    fc.assert(
      fc.property(fc.array(objectArb, { maxLength: 10 }), fc.array(objectArb, { maxLength: 10 }), (first, second) => {
        const store = new IndexedStore<Thing>({ indexers: INDEXERS });
        store.errors$.subscribe(() => undefined);
        store.replace(first.map((o) => structuredClone(o)));
        const before = new Map(store.list().map((o) => [ResourceID.keyOfResource(o), o]));
        const deltas = store.replace(second.map((o) => structuredClone(o)));

        const wanted = new Map<string, Thing>(second.map((o) => [ResourceID.keyOfResource(o), o])); // last wins
        const expected: string[] = [];
        for (const [key, obj] of wanted) {
          const old = before.get(key);
          if (old === undefined) expected.push(`create ${key}`);
          else {
            const a = old.metadata?.resourceVersion;
            const b = obj.metadata?.resourceVersion;
            const same = a !== undefined && b !== undefined ? a === b : canonical(old) === canonical(obj);
            if (!same) expected.push(`update ${key}`);
          }
        }
        for (const key of before.keys()) if (!wanted.has(key)) expected.push(`delete ${key}`);

        const described = deltas.map((d) => `${d.type} ${ResourceID.keyOfResource(d.object)}`);
        expect(described.sort()).to.deep.equal(expected.sort());
        for (const d of deltas) {
          const key = ResourceID.keyOfResource(d.object);
          if (d.type === 'update') expect(d.oldObject).to.equal(before.get(key));
          if (d.type === 'delete') {
            expect(d.deleteStateUnknown).to.equal(true);
            expect(d.object).to.equal(before.get(key));
          }
          if (d.type !== 'delete') expect(store.get(key)).to.equal(d.object);
        }
        // Unchanged objects keep their stored version; the content is the new list's.
        const changed = new Set(described.map((s) => s.split(' ')[1]));
        for (const key of wanted.keys()) if (!changed.has(key)) expect(store.get(key)).to.equal(before.get(key));
        expect(store.keys().sort()).to.deep.equal([...wanted.keys()].sort());
        expect(describeSnapshot(store.snapshot())).to.have.property('size', wanted.size);
        expect((describeSnapshot(store.snapshot()) as { indexes: unknown }).indexes).to.deep.equal(
          recomputed(store.snapshot(), Object.keys(INDEXERS)),
        );
      }),
      { numRuns: 300 },
    );
  });
});
