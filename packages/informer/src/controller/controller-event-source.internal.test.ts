import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import type { EventSourceHealth, EventSourceProblem, Trigger } from '@kindex/core';
import { createNamespace, eventually } from '@kindex/testing';
import { InformerCache } from '../cache/informer-cache.js';
import { InformerRegistry } from '../cache/informer-registry.js';
import { Kinds, type KubeEventSource, type ResourceKind } from '../index.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';
import { ControllerEventSource } from './controller-event-source.js';
import { PrimaryLedger } from './primary-ledger.js';
import { PrimaryVisibility } from './primary-visibility.js';

type ConfigMap = typeof Kinds.ConfigMap extends ResourceKind<infer R> ? R : never;

describe('ControllerEventSource (the primary source as a KubeEventSource)', function () {
  this.timeout(60_000);
  const suite = useOperatorSuite();

  it('starts, syncs, names what it waits for, triggers, reports a throwing filter on problems$ and stops, as any KubeEventSource', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const core = suite.server.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'listed' } } });
    const cache = new InformerCache<ConfigMap>({
      name: 'controller primaries',
      kubeConfig: suite.server.kubeConfig,
      registry: InformerRegistry.of(suite.client),
      kind: Kinds.ConfigMap,
      namespaces: [ns],
    });
    const primary = new ControllerEventSource<ConfigMap>({
      cache,
      ledger: new PrimaryLedger(cache, undefined),
      visibility: new PrimaryVisibility<ConfigMap>(undefined, undefined, () => undefined),
      filter: {
        create: (e) => {
          if (e.object.metadata?.name === 'bad') throw new Error('filter broke on bad');
          return true;
        },
      },
      namespaceSelector: undefined,
    });
    const source: KubeEventSource<ConfigMap, ConfigMap> = primary;
    const triggers: Trigger[] = [];
    const problems: EventSourceProblem[] = [];
    const health: EventSourceHealth[] = [];
    source.onTrigger?.((t) => triggers.push(t));
    source.problems$.subscribe((p) => problems.push(p));
    source.health$.subscribe((h) => health.push(h));

    expect(source.name).to.equal('primary');
    expect(source.hasSynced()).to.equal(false);
    expect(source.pendingSync().kind).to.equal('configmaps/v1');
    await source.start();
    expect(source.hasSynced()).to.equal(true);
    expect(source.pendingSync().namespaces).to.deep.equal([]);
    expect(source.statistics()).to.deep.include({ objects: 1, synced: true });
    expect(health.at(-1)).to.include({ source: 'primary', status: 'healthy' });
    expect(triggers.map((t) => [t.source, t.primaryIds.map(String)])).to.deep.equal([['primary', [`${ns}/listed`]]]);

    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'bad' } } });
    await eventually(() =>
      expect(problems.map((p) => [p.source, (p.error as Error).message])).to.deep.equal([
        ['primary', `predicate anonymous threw on create event of object ${ns}/bad: filter broke on bad`],
      ]),
    );
    // A throwing filter counts as passing: the primary is still reconciled.
    await eventually(() => expect(triggers.flatMap((t) => t.primaryIds.map(String))).to.include(`${ns}/bad`));

    await source.stop();
    expect(health.at(-1)).to.include({ source: 'primary', status: 'stopped' });
  });
});
