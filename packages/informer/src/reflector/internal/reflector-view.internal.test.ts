import { expect } from 'chai';
import fc from 'fast-check';
import { ResourceID, type KubernetesObject, type StoreDelta } from '@kindex/core';
import { ReflectorView } from './reflector-view.js';
import type { PreparedObject } from './prepare-object.js';

function obj(name: string, rv: string, uid = `uid-${name}`): PreparedObject<KubernetesObject> {
  return { key: `ns/${name}`, resourceVersion: rv, object: listed(name, rv, uid) };
}

/** An object as a list hands it to the view (no wrapper). */
function listed(name: string, rv: string, uid = `uid-${name}`): KubernetesObject {
  return { metadata: { name, namespace: 'ns', resourceVersion: rv, uid } };
}

/** A view and the deltas it delivers from now on, each with whether a list made it. */
function collect(view: ReflectorView<KubernetesObject>): Array<StoreDelta & { listing: boolean }> {
  const deltas: Array<StoreDelta & { listing: boolean }> = [];
  view.deltas.add((d, listing) => deltas.push({ ...d, listing }));
  return deltas;
}

/** Applies deltas to a plain map, the way a consumer's store would. */
function applyAll(store: Map<string, KubernetesObject>, deltas: readonly StoreDelta[]): void {
  for (const d of deltas) {
    const key = ResourceID.keyOfResource(d.object);
    if (d.type === 'delete') store.delete(key);
    else store.set(key, d.object);
  }
}

describe('ReflectorView', () => {
  it('emits nothing on relist for objects whose resourceVersion is unchanged, and keeps their instance', () => {
    const view = new ReflectorView<KubernetesObject>();
    const first = obj('a', '1');
    view.replace([first.object], '1');
    const deltas = collect(view);
    view.replace([listed('a', '1')], '2');
    expect(deltas).to.deep.equal([]);
    expect(view.store.get('ns/a')).to.equal(first.object);
  });

  it('on relist emits create, update (with the old object) and delete with deleteStateUnknown, all marked as listed', () => {
    const view = new ReflectorView<KubernetesObject>();
    const a1 = obj('a', '1');
    const b1 = obj('b', '1');
    view.replace([a1.object, b1.object], '1');
    const deltas = collect(view);
    const a2 = obj('a', '2');
    const c1 = obj('c', '3');
    view.replace([a2.object, c1.object], '3');
    expect(deltas).to.deep.equal([
      { type: 'update', object: a2.object, oldObject: a1.object, listing: true },
      { type: 'create', object: c1.object, listing: true },
      { type: 'delete', object: b1.object, deleteStateUnknown: true, listing: true },
    ]);
  });

  it('turns a re-created object (new uid) into delete-unknown then create, not an update, on the watch path', () => {
    const view = new ReflectorView<KubernetesObject>();
    const old = obj('a', '1', 'u1');
    view.replace([old.object], '1');
    const deltas = collect(view);
    const fresh = obj('a', '5', 'u2');
    view.upsert(fresh);
    expect(deltas.map((d) => d.type)).to.deep.equal(['delete', 'create']);
    expect(deltas[0]).to.include({ object: old.object, deleteStateUnknown: true, listing: false });
    expect(deltas[1]).to.include({ object: fresh.object, listing: false });
  });

  it('turns a re-created object (new uid) into delete-unknown then create on a relist too', () => {
    const view = new ReflectorView<KubernetesObject>();
    const old = obj('a', '1', 'u1');
    view.replace([old.object], '1');
    const deltas = collect(view);
    const fresh = obj('a', '5', 'u2');
    view.replace([fresh.object], '5');
    expect(deltas.map((d) => d.type)).to.deep.equal(['delete', 'create']);
    expect(deltas[0]).to.include({ object: old.object, deleteStateUnknown: true });
  });

  it('ignores a replayed watch event and a delete of an object never seen', () => {
    const view = new ReflectorView<KubernetesObject>();
    const deltas = collect(view);
    view.upsert(obj('a', '1'));
    view.upsert(obj('a', '1'));
    view.delete(obj('zzz', '2'));
    expect(deltas.map((d) => d.type)).to.deep.equal(['create']);
  });

  it('keeps the store current when nobody listens to the watch path', () => {
    const view = new ReflectorView<KubernetesObject>();
    view.upsert(obj('a', '1'));
    view.upsert(obj('a', '2'));
    view.upsert(obj('b', '1'));
    view.delete(obj('b', '3'));
    expect(view.store.keys()).to.deep.equal(['ns/a']);
    expect(view.store.get('ns/a')?.metadata?.resourceVersion).to.equal('2');
  });

  it('keeps a consumer applying the deltas equal to the latest list and to the store, whatever the history (property)', () => {
    const state = fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.integer({ min: 1, max: 3 })), { maxLength: 6 });
    fc.assert(
      fc.property(fc.array(state, { minLength: 1, maxLength: 6 }), (lists) => {
        const consumer = new Map<string, KubernetesObject>();
        const view = new ReflectorView<KubernetesObject>();
        const deltas = collect(view);
        let previous = new Map<string, string>();
        for (const [i, list] of lists.entries()) {
          const byName = new Map<string, string>(list.map(([n, v]) => [n, String(v)]));
          deltas.length = 0;
          view.replace(
            [...byName].map(([n, v]) => listed(n, v)),
            String(i),
          );
          applyAll(consumer, deltas);
          const expected = [...byName].map(([n, v]) => [`ns/${n}`, v]).sort();
          expect([...consumer].map(([k, o]) => [k, o.metadata?.resourceVersion]).sort()).to.deep.equal(expected);
          expect(
            view.store
              .list()
              .map((o) => o.metadata?.resourceVersion)
              .sort(),
          ).to.deep.equal(expected.map(([, v]) => v).sort());
          const changed = [...byName].filter(([n, v]) => previous.get(n) !== v).length;
          const vanished = [...previous.keys()].filter((n) => !byName.has(n)).length;
          expect(deltas.length).to.equal(changed + vanished);
          previous = byName;
        }
      }),
    );
  });

  it('keeps a consumer equal to the store across any mix of lists and watch events, re-creations included (property)', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('list' as const),
        items: fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 1, max: 4 }), fc.constantFrom('u1', 'u2')), {
          maxLength: 4,
        }),
      }),
      fc.record({
        kind: fc.constantFrom('upsert' as const, 'delete' as const),
        name: fc.constantFrom('a', 'b', 'c'),
        rv: fc.integer({ min: 1, max: 4 }),
        uid: fc.constantFrom('u1', 'u2'),
      }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 12 }), (ops) => {
        const consumer = new Map<string, KubernetesObject>();
        const view = new ReflectorView<KubernetesObject>();
        const deltas = collect(view);
        for (const o of ops) {
          deltas.length = 0;
          if (o.kind === 'list')
            view.replace(
              o.items.map(([n, v, u]) => listed(n, String(v), u)),
              '0',
            );
          else if (o.kind === 'upsert') view.upsert(obj(o.name, String(o.rv), o.uid));
          else view.delete(obj(o.name, String(o.rv), o.uid));
          for (const d of deltas) {
            // Never an update across two lives of a name.
            if (d.type === 'update') expect(d.oldObject.metadata?.uid).to.equal(d.object.metadata?.uid);
          }
          applyAll(consumer, deltas);
          expect([...consumer.keys()].sort()).to.deep.equal(view.store.keys().sort());
          for (const [key, object] of consumer) expect(view.store.get(key)).to.equal(object);
        }
      }),
    );
  });
});
