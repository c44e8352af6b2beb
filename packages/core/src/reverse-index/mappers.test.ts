import { expect } from 'chai';
import { IndexedStore, Mappers, PrimaryToSecondaryIndex, ResourceID, type KubernetesObject } from '../index.js';

interface Job extends KubernetesObject {
  spec: { clusterName: string };
}

function job(name: string, clusterName: string): Job {
  return { metadata: { name, namespace: 'ns' }, spec: { clusterName } };
}

const cluster = (name: string): KubernetesObject => ({ metadata: { name, namespace: 'ns' } });

describe('Mappers', () => {
  describe('fromIndex', () => {
    it('maps a secondary to the primaries a primary-cache index holds under its value', () => {
      const jobs = new IndexedStore<Job>({
        indexers: { byCluster: (j) => [ResourceID.keyOf(j.spec.clusterName, j.metadata?.namespace)] },
      });
      jobs.replace([job('j1', 'c1'), job('j2', 'c1'), job('j3', 'c2')]);
      const toPrimaryIds = Mappers.fromIndex(jobs, 'byCluster', (c) => ResourceID.keyOfResource(c));
      const ids = [...toPrimaryIds(cluster('c1'))];
      expect(ids.every((id) => id instanceof ResourceID)).to.equal(true);
      expect(ids.map((id) => id.key).sort()).to.deep.equal(['ns/j1', 'ns/j2']);
      expect([...toPrimaryIds(cluster('c9'))]).to.deep.equal([]);
    });

    it('reads the current content of the store on every call', () => {
      const jobs = new IndexedStore<Job>({ indexers: { byCluster: (j) => [j.spec.clusterName] } });
      const toPrimaryIds = Mappers.fromIndex(jobs, 'byCluster', (c) => c.metadata?.name ?? '');
      jobs.upsert(job('late', 'c1'));
      expect([...toPrimaryIds(cluster('c1'))].map((id) => id.key)).to.deep.equal(['ns/late']);
    });

    it('drives a reverse index: the Job/Cluster pattern', () => {
      const jobs = new IndexedStore<Job>({ indexers: { byCluster: (j) => [j.spec.clusterName] } });
      jobs.replace([job('j1', 'c1'), job('j2', 'c2')]);
      const index = new PrimaryToSecondaryIndex({
        toPrimaryIds: Mappers.fromIndex(jobs, 'byCluster', (c) => c.metadata?.name ?? ''),
      });
      index.seed([cluster('c1'), cluster('c2')]);
      expect([...index.secondaryKeys('ns/j1')]).to.deep.equal(['ns/c1']);
      expect([...index.secondaryKeys('ns/j2')]).to.deep.equal(['ns/c2']);
    });
  });
});
