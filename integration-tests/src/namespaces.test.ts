// Namespaces changed at run time on a running controller (Controller.changeNamespaces): the
// Job controller and its Cluster source (which inherits the controller's namespaces) follow.
import { expect } from 'chai';
import { createNamespace } from '@kindex/testing';
import {
  ClusterKind,
  JobKind,
  cluster,
  expectNoOverlaps,
  expectServerJobValues,
  job,
  setClusterValue,
  settle,
  startSample,
  useSampleServer,
} from './support/sample-fixture.js';

describe('Controller.changeNamespaces (on the Job/Cluster sample)', function () {
  this.timeout(90_000);
  const fixture = useSampleServer();

  it('converges the jobs of an added namespace and stops reconciling a removed one', async () => {
    const { server, client } = fixture();
    const first = await createNamespace(server.kubeConfig);
    const second = await createNamespace(server.kubeConfig);
    const run = await startSample(fixture(), { namespaces: [first] });
    for (const ns of [first, second]) {
      await client.create(ClusterKind, cluster('c', ns, `${ns}-1`));
      await client.create(JobKind, job('j1', ns, 'c'));
      await client.create(JobKind, job('j2', ns, 'c'));
    }
    await expectServerJobValues(client, first, { j1: `${first}-1`, j2: `${first}-1` });
    await settle(run);
    expect(
      run.jobLog.keys().filter((k) => k.startsWith(`${second}/`)),
      'reconciles outside the watched namespaces',
    ).to.deep.equal([]);
    await expectServerJobValues(client, second, { j1: undefined, j2: undefined }, 1_000);

    await run.sample.jobs.changeNamespaces([second]);
    await expectServerJobValues(client, second, { j1: `${second}-1`, j2: `${second}-1` });
    await settle(run);
    run.jobLog.reset();

    // The removed namespace: its objects left the caches, so nothing there is reconciled.
    await setClusterValue(client, first, 'c', `${first}-2`);
    await client.create(JobKind, job('j3', first, 'c'));
    // The kept namespace still works.
    await setClusterValue(client, second, 'c', `${second}-2`);
    await expectServerJobValues(client, second, { j1: `${second}-2`, j2: `${second}-2` });
    await settle(run);
    expect(
      run.jobLog.keys().filter((k) => k.startsWith(`${first}/`)),
      'reconciles in the removed namespace',
    ).to.deep.equal([]);
    await expectServerJobValues(client, first, { j1: `${first}-1`, j2: `${first}-1`, j3: undefined }, 1_000);
    expect(run.sample.jobs.primaryCache.list(first), 'jobs of the removed namespace still cached').to.deep.equal([]);
    expect(run.sample.jobReconciler.clusters!.list(first), 'clusters of the removed namespace still cached').to.deep.equal([]);
    expectNoOverlaps(run);
  });

  it('watches both namespaces after adding one to the set', async () => {
    const { server, client } = fixture();
    const first = await createNamespace(server.kubeConfig);
    const second = await createNamespace(server.kubeConfig);
    const run = await startSample(fixture(), { namespaces: [first] });
    await run.sample.jobs.changeNamespaces([first, second]);
    for (const ns of [first, second]) {
      await client.create(ClusterKind, cluster('c', ns, `${ns}-1`));
      await client.create(JobKind, job('j', ns, 'c'));
    }
    await expectServerJobValues(client, first, new Map([['j', `${first}-1`]]));
    await expectServerJobValues(client, second, new Map([['j', `${second}-1`]]));
  });
});
