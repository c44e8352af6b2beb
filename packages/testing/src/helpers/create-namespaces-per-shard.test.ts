import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import { shardIndexOf } from '@kindex/core';
import { createNamespacesPerShard, useTestApiServer } from '../index.js';

describe('createNamespacesPerShard', () => {
  const server = useTestApiServer();

  it('creates perShard namespaces in each shard', async () => {
    const names = await createNamespacesPerShard(server().kubeConfig, { shards: 6, perShard: 2 });
    const perShard = new Array<number>(6).fill(0);
    for (const name of names) perShard[shardIndexOf('object.metadata.namespace', { metadata: { namespace: name } }, 6)]!++;
    expect(perShard).to.deep.equal([2, 2, 2, 2, 2, 2]);
    const core = server().kubeConfig.makeApiClient(CoreV1Api);
    for (const name of names) expect((await core.readNamespace({ name })).metadata?.name).to.equal(name);
  });

  it('refuses a shard count that is not a positive integer', async () => {
    const error = await createNamespacesPerShard(server().kubeConfig, { shards: 0, perShard: 1 }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(RangeError);
    expect((error as Error).message).to.equal('createNamespacesPerShard: shards (0) and perShard (1) must be positive integers');
  });
});
