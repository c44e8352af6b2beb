import { expect } from 'chai';
import fc from 'fast-check';
import { ObjectStore, type Json } from './object-store.js';
import { BUILTIN_TYPES } from './resource-registry.js';

const configMaps = BUILTIN_TYPES.find((t) => t.id === '/configmaps')!;

type Op = { kind: 'put' | 'delete'; ns: string; name: string; value: number } | { kind: 'list' } | { kind: 'mark' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('put' as const),
    ns: fc.constantFrom('a', 'b', 'a-b'),
    name: fc.constantFrom('x', 'y', 'z', 'x1'),
    value: fc.nat(9),
  }),
  fc.record({
    kind: fc.constant('delete' as const),
    ns: fc.constantFrom('a', 'b', 'a-b'),
    name: fc.constantFrom('x', 'y', 'z', 'x1'),
    value: fc.constant(0),
  }),
  fc.constant({ kind: 'list' as const }),
  fc.constant({ kind: 'mark' as const }),
);

const draft = (ns: string, name: string, value: number): Json => ({
  kind: 'ConfigMap',
  apiVersion: 'v1',
  metadata: { name, namespace: ns },
  data: { v: String(value) },
});

/** Applies a put or a delete to the store and to its model map alike; false for the other steps, which each test takes itself. */
function write(store: ObjectStore, model: Map<string, number>, o: Op): boolean {
  if (o.kind !== 'put' && o.kind !== 'delete') return false;
  const key = `${o.ns}/${o.name}`;
  if (o.kind === 'delete') {
    store.delete(configMaps, key);
    model.delete(key);
  } else {
    if (model.has(key)) store.update(configMaps, key, draft(o.ns, o.name, o.value));
    else store.create(configMaps, key, draft(o.ns, o.name, o.value));
    model.set(key, o.value);
  }
  return true;
}

describe('ObjectStore', () => {
  it('lists in key order, by namespace and after a key, matching a model map', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const store = new ObjectStore({ historyWindow: 1000 });
        const model = new Map<string, number>();
        for (const o of ops) {
          if (!write(store, model, o) && o.kind === 'list') {
            // Lists in the middle build the sorted index that later writes must keep in step.
            expect([...store.list(configMaps.id)].map((s) => s.key)).to.deep.equal([...model.keys()].sort());
          }
        }
        const keys = [...model.keys()].sort();
        expect([...store.list(configMaps.id)].map((s) => s.key)).to.deep.equal(keys);
        expect([...store.list(configMaps.id, 'a')].map((s) => s.key)).to.deep.equal(keys.filter((k) => k.startsWith('a/')));
        for (const after of keys) {
          expect([...store.list(configMaps.id, undefined, after)].map((s) => s.key)).to.deep.equal(keys.filter((k) => k > after));
          expect(store.countAfter(configMaps.id, undefined, after)).to.equal(keys.filter((k) => k > after).length);
        }
      }),
    );
  });

  it('rebuilds the state at an earlier resourceVersion from history (listAt)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const store = new ObjectStore({ historyWindow: 1000 });
        const model = new Map<string, number>();
        const snapshots: { rv: number; state: [string, number][] }[] = [];
        for (const o of ops) {
          if (!write(store, model, o))
            snapshots.push({ rv: store.resourceVersion, state: [...model].sort(([a], [b]) => (a < b ? -1 : 1)) });
        }
        for (const snap of snapshots) {
          const at = [...store.listAt(configMaps.id, snap.rv)].map((s) => [s.key, Number((s.obj['data'] as Json)['v'])]);
          expect(at).to.deep.equal(snap.state);
        }
      }),
    );
  });

  it('answers 410 Expired for a resourceVersion older than the history window', () => {
    const store = new ObjectStore({ historyWindow: 2 });
    const first = store.resourceVersion;
    for (let i = 0; i < 4; i++) store.create(configMaps, `a/${i}`, draft('a', String(i), i));
    expect(() => store.eventsSince(first)).to.throw('too old resource version');
    expect(store.eventsSince(store.resourceVersion - 1)).to.have.length(1);
  });
});
