import { expect } from 'chai';
import fc from 'fast-check';
import type { KubernetesObject } from '@kindex/core';
import type { ReflectorDelta } from '../reflector-delta.js';
import { KnownObjects } from './known-objects.js';
import type { PreparedObject } from './prepare-object.js';

function obj(name: string, rv: string, uid = `uid-${name}`): PreparedObject<KubernetesObject> {
  return { key: `ns/${name}`, resourceVersion: rv, object: { metadata: { name, namespace: 'ns', resourceVersion: rv, uid } } };
}

function collect(): { deltas: ReflectorDelta[]; emit: (d: ReflectorDelta) => void } {
  const deltas: ReflectorDelta[] = [];
  return { deltas, emit: (d) => deltas.push(d) };
}

/** Applies deltas to a plain map, the way a consumer's store would. */
function applyAll(store: Map<string, KubernetesObject>, deltas: readonly ReflectorDelta[]): void {
  for (const d of deltas) {
    if (d.type === 'deleted') store.delete(d.key);
    else store.set(d.key, d.object);
  }
}

describe('KnownObjects', () => {
  it('emits nothing on relist for objects whose resourceVersion is unchanged, and keeps their instance', () => {
    const known = new KnownObjects<KubernetesObject>();
    const first = obj('a', '1');
    known.replace([first], () => {});
    const { deltas, emit } = collect();
    known.replace([obj('a', '1')], emit);
    expect(deltas).to.deep.equal([]);
    expect(known.get('ns/a')).to.equal(first.object);
  });

  it('on relist emits added, updated (with the old object) and deleted with deleteStateUnknown', () => {
    const known = new KnownObjects<KubernetesObject>();
    const a1 = obj('a', '1');
    const b1 = obj('b', '1');
    known.replace([a1, b1], () => {});
    const { deltas, emit } = collect();
    const a2 = obj('a', '2');
    const c1 = obj('c', '3');
    known.replace([a2, c1], emit);
    expect(deltas).to.deep.equal([
      { type: 'updated', key: 'ns/a', object: a2.object, oldObject: a1.object },
      { type: 'added', key: 'ns/c', object: c1.object },
      { type: 'deleted', key: 'ns/b', object: b1.object, deleteStateUnknown: true },
    ]);
  });

  it('turns a re-created object (new uid) into deleted-unknown then added, not an update', () => {
    const known = new KnownObjects<KubernetesObject>();
    const old = obj('a', '1', 'u1');
    known.replace([old], () => {});
    const { deltas, emit } = collect();
    const fresh = obj('a', '5', 'u2');
    known.upsert(fresh, emit);
    expect(deltas.map((d) => d.type)).to.deep.equal(['deleted', 'added']);
    expect(deltas[0]).to.include({ object: old.object, deleteStateUnknown: true });
  });

  it('ignores a replayed watch event and a delete of an object never seen', () => {
    const known = new KnownObjects<KubernetesObject>();
    const { deltas, emit } = collect();
    known.upsert(obj('a', '1'), emit);
    known.upsert(obj('a', '1'), emit);
    known.delete(obj('zzz', '2'), emit);
    expect(deltas.map((d) => d.type)).to.deep.equal(['added']);
  });

  for (const mode of ['its own map', 'the consumer store'] as const) {
    it(`keeps a consumer applying the deltas equal to the latest list, whatever the history, diffing against ${mode} (property)`, () => {
      const state = fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.integer({ min: 1, max: 3 })), { maxLength: 6 });
      fc.assert(
        fc.property(fc.array(state, { minLength: 1, maxLength: 6 }), (lists) => {
          const consumer = new Map<string, KubernetesObject>();
          const known = new KnownObjects<KubernetesObject>(mode === 'its own map' ? undefined : consumer);
          let previous = new Map<string, string>();
          for (const list of lists) {
            const byName = new Map<string, string>(list.map(([n, v]) => [n, String(v)]));
            const deltas: ReflectorDelta[] = [];
            known.replace(
              [...byName].map(([n, v]) => obj(n, v)),
              (d) => {
                deltas.push(d);
                applyAll(consumer, [d]);
              },
            );
            const expected = [...byName].map(([n, v]) => [`ns/${n}`, v]).sort();
            expect([...consumer].map(([k, o]) => [k, o.metadata?.resourceVersion]).sort()).to.deep.equal(expected);
            expect(
              known
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
  }
});
