import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import { ShardMap } from '@kindex/core';
import { shardIndexOf } from '@kindex/core/internal';
import { useTestApiServer } from '../index.js';
import { createNamespacesPerShard } from '../internal.js';

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

  it('follows a given map: perShard namespaces in each shard of a balanced map, whose cuts are far from equal slices', async () => {
    // Cut at the quantiles of sequential names, which crowd a few equal slices.
    const present = Array.from({ length: 40 }, (_, i) => `team-${i + 1}`);
    const map = ShardMap.balanced('object.metadata.namespace', 4, present, 1);
    expect(ShardMap.equal('object.metadata.namespace', 4).sameCuts(map)).to.equal(false);
    const names = await createNamespacesPerShard(server().kubeConfig, { shards: 4, perShard: 3, map });
    expect(map.loads(names)).to.deep.equal([3, 3, 3, 3]);
    const core = server().kubeConfig.makeApiClient(CoreV1Api);
    for (const name of names) expect((await core.readNamespace({ name })).metadata?.name).to.equal(name);
  });

  it('refuses a map of another shard count or field, saying what to pass', async () => {
    const uids = ShardMap.equal('object.metadata.uid', 4);
    const error = await createNamespacesPerShard(server().kubeConfig, { shards: 4, perShard: 1, map: uids }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(RangeError);
    expect((error as Error).message).to.equal(
      'createNamespacesPerShard: map (epoch 0) cuts object.metadata.uid into 4 shards; pass a map by object.metadata.namespace of 4 shards, or shards: 4',
    );
    const six = ShardMap.equal('object.metadata.namespace', 6);
    expect(
      ((await createNamespacesPerShard(server().kubeConfig, { shards: 4, perShard: 1, map: six }).catch((e: unknown) => e)) as Error)
        .message,
    ).to.equal(
      'createNamespacesPerShard: map (epoch 0) cuts object.metadata.namespace into 6 shards; pass a map by object.metadata.namespace of 4 shards, or shards: 6',
    );
  });

  it('refuses a shard count that is not a positive integer', async () => {
    const error = await createNamespacesPerShard(server().kubeConfig, { shards: 0, perShard: 1 }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(RangeError);
    expect((error as Error).message).to.equal('createNamespacesPerShard: shards (0) and perShard (1) must be positive integers');
  });
});
