import { expect } from 'chai';
import { ResourceID, type ReconcileStamps } from '@kindex/core';
import { createNamespace, eventually } from '@kindex/testing';
import { BoundedStore, InformerCache, InformerRegistry, Kinds } from '../../index.js';
import { useOperatorSuite } from '../../testing-fixtures/operator-suite.js';

/** Every key and stamp a full pass visits. */
function walkAll(stamps: ReconcileStamps): Map<string, number> {
  const seen = new Map<string, number>();
  for (let guard = 0; guard < 100; guard++) {
    if (stamps.walk(3, (key, tick) => (seen.set(key, tick), true))) return seen;
  }
  throw new Error('the walk never ended');
}

describe('InformerCache.reconcileStamps', function () {
  this.timeout(60_000);
  const suite = useOperatorSuite();

  it('keeps the stamps in a bounded cache records, in memory or not, shared informers falling back to a map', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const names = Array.from({ length: 10 }, (_, i) => `cm-${i}`);
    await Promise.all(names.map((name) => suite.client.create(Kinds.ConfigMap, { metadata: { name, namespace: ns } })));
    const registry = new InformerRegistry();
    const options = { kubeConfig: suite.server.kubeConfig, kind: Kinds.ConfigMap, registry, namespaces: [ns], bound: { maxObjects: 2 } };
    const first = new InformerCache({ ...options, name: 'first' });
    const second = new InformerCache({ ...options, name: 'second' });
    await Promise.all([first.start(), second.start()]);
    try {
      await eventually(() => expect(names.every((n) => first.knows(`${ns}/${n}`))).to.equal(true));
      expect(first.size).to.be.at.most(2);
      expect(new InformerCache({ ...options, name: 'unbounded', bound: undefined }).reconcileStamps()).to.equal(undefined);

      const a = first.reconcileStamps()!;
      const b = second.reconcileStamps()!;
      const keys = names.map((n) => `${ns}/${n}`);
      // Every known object is walked, none stamped yet; the first holder claims the shared store.
      expect([...walkAll(a).entries()].sort()).to.deep.equal(keys.map((k) => [k, 0]).sort());
      expect(a.size).to.equal(10);
      a.stamp(keys[0]!, 7);
      b.stamp(keys[0]!, 9); // the store is a's: b keeps its own
      expect(a.stampOf(keys[0]!)).to.equal(7);
      expect(b.stampOf(keys[0]!)).to.equal(9);
      expect(walkAll(b)).to.deep.equal(new Map([[keys[0]!, 9]]));
      a.stamp(`${ns}/unknown`, 5); // not a primary: dropped
      expect(a.stampOf(`${ns}/unknown`)).to.equal(0);

      // An update keeps the stamp; a deleted object leaves the walk.
      await suite.client.patch(Kinds.ConfigMap, ResourceID.of('cm-0', ns), { data: { v: '2' } });
      await suite.client.delete(Kinds.ConfigMap, ResourceID.of('cm-1', ns));
      await eventually(() => expect(first.knows(keys[1]!)).to.equal(false));
      expect(a.stampOf(keys[0]!)).to.equal(7);
      expect([...walkAll(a).keys()]).to.not.include(keys[1]);

      // Released, the store can be claimed again.
      a.release();
      const c = second.reconcileStamps()!;
      c.stamp(keys[2]!, 11);
      expect(walkAll(c).get(keys[2]!)).to.equal(11);
      expect(walkAll(c).size).to.equal(9);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });

  it('gives one holder at a time the records of a BoundedStore', () => {
    const store = new BoundedStore({ bound: { maxObjects: 1 }, fetch: async () => undefined });
    const held = store.claimReconcileStamps()!;
    expect(store.claimReconcileStamps()).to.equal(undefined);
    held.release();
    expect(store.claimReconcileStamps()).to.not.equal(undefined);
  });
});
