// The two lease stores on an API server over HTTP (embedded by default, kube-apiserver with
// KINDEX_APISERVER=real): both write through lease/'s one Lease client, so both turn a lost race
// (409) into LeaseConflictError, and what leader election and sharding write (MicroTime stamps,
// a release) is what kube-apiserver accepts.
import { expect } from 'chai';
import { uniqueName } from '@kindex/testing';
import {
  KubeApiError,
  KubeLeaseStore,
  KubeShardLeaseStore,
  LeaderElector,
  LeaseConflictError,
  ShardCoordinator,
  microTime,
  SHARD_GROUP_LABEL,
  type LeaseSpec,
} from '../index.js';
import { useClientPerTest } from '../testing-fixtures/client-per-test.js';

describe('KubeLeaseStore and KubeShardLeaseStore', () => {
  const suite = useClientPerTest();

  const spec = (holderIdentity: string): LeaseSpec => ({
    holderIdentity,
    leaseDurationSeconds: 15,
    acquireTime: microTime(Date.now()),
    renewTime: microTime(Date.now()),
    leaseTransitions: 0,
  });

  async function expectConflict(write: Promise<unknown>, lease: string): Promise<void> {
    const error: unknown = await write.then(
      () => expect.fail(`the write on ${lease} should have lost the race`),
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(LeaseConflictError);
    expect((error as LeaseConflictError).lease).to.equal(lease);
    expect((error as LeaseConflictError).message).to.equal(`lease ${lease} was changed by another candidate first`);
    expect((error as LeaseConflictError).cause)
      .to.be.instanceOf(KubeApiError)
      .with.property('status', 409);
  }

  it('KubeLeaseStore: a second create and an update on a stale resourceVersion lose the race as LeaseConflictError', async () => {
    const name = uniqueName('lease');
    const a = new KubeLeaseStore(suite.client, { name, namespace: suite.namespace });
    const b = new KubeLeaseStore(suite.client, { name, namespace: suite.namespace });
    expect(a.description).to.equal(`${suite.namespace}/${name}`);
    expect(await a.get()).to.equal(undefined);
    const created = await a.create(spec('a'));
    await expectConflict(b.create(spec('b')), `${suite.namespace}/${name}`);
    const renewed = await a.update(created, { ...created.spec, renewTime: microTime(Date.now() + 1) });
    expect(renewed.spec?.holderIdentity).to.equal('a');
    await expectConflict(b.update(created, spec('b')), `${suite.namespace}/${name}`);
    expect((await b.get())?.metadata?.resourceVersion).to.equal(renewed.metadata?.resourceVersion);
  });

  it('KubeLeaseStore: refuses an update without the resourceVersion read, naming the lease', async () => {
    const name = uniqueName('lease');
    const store = new KubeLeaseStore(suite.client, { name, namespace: suite.namespace });
    let error: unknown;
    try {
      await store.update({ metadata: { name, namespace: suite.namespace } }, spec('a'));
    } catch (e) {
      error = e;
    }
    expect(error)
      .to.be.instanceOf(Error)
      .with.property(
        'message',
        `lease ${suite.namespace}/${name}: cannot update without the resourceVersion read (optimistic concurrency)`,
      );
  });

  it('KubeShardLeaseStore: labels its leases for the group list, merges annotations, and loses races as LeaseConflictError', async () => {
    const group = uniqueName('jobs');
    const store = new KubeShardLeaseStore(suite.client, { name: group, namespace: suite.namespace });
    const other = new KubeShardLeaseStore(suite.client, { name: uniqueName('other'), namespace: suite.namespace });
    const shard = await store.create(`${group}-shard-0`, spec('r1'), { 'example.dev/a': '1' });
    await other.create(`${group}-foreign`, spec('r2'));
    expect(shard.metadata?.labels?.[SHARD_GROUP_LABEL]).to.equal(group);
    expect((await store.list()).map((l) => l.metadata?.name)).to.deep.equal([`${group}-shard-0`]);
    await expectConflict(store.create(`${group}-shard-0`, spec('r2')), `${suite.namespace}/${group}-shard-0`);
    const updated = await store.update(shard, spec('r1'), { 'example.dev/b': '2' });
    expect(updated.metadata?.annotations).to.include({ 'example.dev/a': '1', 'example.dev/b': '2' });
    await expectConflict(store.update(shard, spec('r2')), `${suite.namespace}/${group}-shard-0`);
  });

  it('a LeaderElector and a ShardCoordinator write claims and releases the server accepts (MicroTime stamps, an empty holder)', async function () {
    this.timeout(60_000);
    const timing = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };
    const name = uniqueName('lease');
    const elector = new LeaderElector({
      store: new KubeLeaseStore(suite.client, { name, namespace: suite.namespace }),
      identity: 'e1',
      ...timing,
    });
    const group = uniqueName('jobs');
    const coordinator = new ShardCoordinator({
      group,
      shards: 2,
      identity: 'c1',
      store: new KubeShardLeaseStore(suite.client, { name: group, namespace: suite.namespace }),
      ...timing,
    });
    await elector.start();
    await coordinator.start();
    expect(elector.isLeader).to.equal(true);
    expect(coordinator.owned()).to.deep.equal([0, 1]);
    const microTimePattern = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
    const held = await new KubeLeaseStore(suite.client, { name, namespace: suite.namespace }).get();
    expect(held?.spec).to.include({ holderIdentity: 'e1', leaseDurationSeconds: 3, leaseTransitions: 0 });
    expect(held?.spec?.renewTime).to.match(microTimePattern);
    await elector.stop();
    await coordinator.stop();
    const released = await new KubeLeaseStore(suite.client, { name, namespace: suite.namespace }).get();
    expect(released?.spec).to.include({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 0 });
    const groupLeases = await new KubeShardLeaseStore(suite.client, { name: group, namespace: suite.namespace }).list();
    expect(groupLeases.map((l) => l.metadata?.name))
      .to.include.members([`${group}-shard-0`, `${group}-shard-1`])
      .and.to.have.length(3);
    expect(groupLeases.map((l) => l.spec?.holderIdentity)).to.deep.equal(['', '', '']);
  });
});
