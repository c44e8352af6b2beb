import { expect } from 'chai';
import { ResourceID, UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { createNamespace, eventually, rawRequest } from '@kindex/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import { Controller, InformerEventSource, Kinds, type KubeClient } from '../../index.js';
import { useOperatorSuite } from '../../testing-fixtures/operator-suite.js';

// A controller whose primary cache keeps 100 of 3,000 churning ConfigMaps, end to end over HTTP.
// The 100,000-primary case (bound 1,000) is bench/bounded-cache: it takes minutes on this machine.
const PRIMARIES = 3_000;
const BOUND = 100;

type ConfigMap = KubernetesObject & { data?: Record<string, string> };

/** GETs of single ConfigMaps the server answered, from its apiserver_request_total counter. */
async function configMapGets(kubeConfig: KubeConfig): Promise<number> {
  const { text } = await rawRequest(kubeConfig, { path: '/metrics' });
  let n = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('apiserver_request_total{') && line.includes('verb="GET"') && line.includes('resource="configmaps"')) {
      if (line.includes('subresource=""') || !line.includes('subresource=')) n += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return n;
}

/** Runs `work` over `items`, `width` at a time. */
async function inWaves<T>(items: readonly T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(work));
}

describe('Controller cacheBound', function () {
  this.timeout(300_000);
  const suite = useOperatorSuite();
  let controller: Controller<ConfigMap> | undefined;
  afterEach(async () => {
    await controller?.stop({ drainTimeoutMs: 5_000 });
    controller = undefined;
  });

  it('reconciles every primary of a churning set with at most maxObjects in memory, and reads a cold one from the API once', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const names = Array.from({ length: PRIMARIES }, (_, i) => `cm-${i}`);
    await inWaves(names, 50, (name) =>
      suite.client.create(Kinds.ConfigMap, { metadata: { name, namespace: ns }, data: { v: '1', payload: 'x'.repeat(1_000) } }),
    );
    const seen = new Map<string, string | undefined>();
    let mostInMemory = 0;
    const reconciler: Reconciler<ConfigMap, KubeClient> = {
      reconcile: (cm) => {
        seen.set(cm.metadata!.name!, cm.data?.['v']);
        mostInMemory = Math.max(mostInMemory, controller!.primaryCache.size);
        return UpdateControl.noUpdate();
      },
      // A Secret named as a ConfigMap triggers that ConfigMap: a trigger that is not the primary's own event.
      prepareEventSources: (context) => [
        InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap)
          .withName('pokes')
          .withSecondaryToPrimaryMapper((secret) => [ResourceID.of(secret.metadata!.name!, secret.metadata!.namespace)])
          .build(context),
      ],
    };
    controller = new Controller<ConfigMap>(
      reconciler,
      { kind: Kinds.ConfigMap, namespaces: [ns], cacheBound: { maxObjects: BOUND } },
      suite.client,
    );
    await controller.start();
    await eventually(() => expect(seen.size).to.equal(PRIMARIES), { timeoutMs: 120_000 });
    expect(controller.primaryCache.size).to.be.at.most(BOUND);
    expect(controller.primaryCache.knows(`${ns}/cm-0`)).to.equal(true);

    // Churn: every primary changes; each reconcile sees its new state.
    await inWaves(names, 50, (name) => suite.client.patch(Kinds.ConfigMap, ResourceID.of(name, ns), { data: { v: '2' } }));
    await eventually(() => expect([...seen.values()].filter((v) => v !== '2')).to.have.length(0), { timeoutMs: 120_000 });
    expect(mostInMemory).to.be.at.most(BOUND);
    expect(controller.primaryCache.size).to.be.at.most(BOUND);

    // A cold primary: changed first, so out of memory now; a Secret triggers it.
    const cold = `${ns}/cm-0`;
    expect(controller.primaryCache.peekKey(cold)).to.equal(undefined);
    const before = await configMapGets(suite.server.kubeConfig);
    seen.delete('cm-0');
    await suite.client.create(Kinds.Secret, { metadata: { name: 'cm-0', namespace: ns }, stringData: { poke: '1' } });
    await eventually(() => expect(seen.get('cm-0')).to.equal('2'));
    expect((await configMapGets(suite.server.kubeConfig)) - before).to.equal(1);
    expect(controller.primaryCache.peekKey(cold)?.data?.['payload']).to.have.length(1_000); // whole, and kept again

    // Triggered again: in memory now, no second read.
    seen.delete('cm-0');
    await suite.client.patch(Kinds.Secret, ResourceID.of('cm-0', ns), { stringData: { poke: '2' } });
    await eventually(() => expect(seen.get('cm-0')).to.equal('2'));
    expect((await configMapGets(suite.server.kubeConfig)) - before).to.equal(1);
  });

  it('rejects a bad bound when the controller is made, naming the option and the fix', () => {
    const make = (cacheBound: unknown) => () =>
      new Controller<ConfigMap>(
        { reconcile: () => UpdateControl.noUpdate() },
        { kind: Kinds.ConfigMap, name: 'maps', cacheBound: cacheBound as never },
        suite.client,
      );
    expect(make({ maxObjects: 0 })).to.throw(
      TypeError,
      'controller maps: cacheBound.maxObjects must be a positive integer (the most objects kept in memory), got 0; set 1 or more, or leave it out',
    );
    expect(make({ expireAfterAccessMs: -5 })).to.throw(
      TypeError,
      'controller maps: cacheBound.expireAfterAccessMs must be a positive integer',
    );
    expect(make({ maxObjects: 10, shardSelector: 'x' })).to.throw('Unknown option controller maps options.cacheBound.shardSelector');
    expect(
      () =>
        new Controller<ConfigMap>(
          { reconcile: () => UpdateControl.noUpdate() },
          {
            kind: Kinds.ConfigMap,
            name: 'maps',
            cacheBound: { maxObjects: 10 },
            shardSelector: "shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')",
          },
          suite.client,
        ),
    ).to.throw(TypeError, 'controller maps: cacheBound and a shard selector exclude each other');
  });
});
