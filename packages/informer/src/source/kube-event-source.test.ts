import { expect } from 'chai';
import { KubeConfig, CoreV1Api } from '@kubernetes/client-node';
import { UpdateControl, type KubernetesObject, type Reconciler, type ShardSelector } from '@kindex/core';
import { createNamespace, eventually, uniqueName } from '@kindex/testing';
import {
  InformerEventSource,
  Kinds,
  KubeClient,
  Operator,
  type ControllerEvent,
  type ControllerProblemEvent,
  type KubeEventSource,
  type NamespaceSet,
} from '../index.js';
import { controllerDebugView } from '../internal.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';
import { WIDGET_CRD, WidgetKind, type Widget } from '../testing-fixtures/widget.js';

/**
 * A KubeEventSource that is not an InformerEventSource (it delegates to one): what the layers
 * above source/ do with it shows they read the contract, not the class.
 */
class DelegatingSource<R extends KubernetesObject, P extends KubernetesObject> implements KubeEventSource<R, P> {
  constructor(private readonly inner: InformerEventSource<R, P>) {}
  get name() {
    return this.inner.name;
  }
  get resourceType() {
    return this.inner.resourceType;
  }
  get triggers$() {
    return this.inner.triggers$;
  }
  get health$() {
    return this.inner.health$;
  }
  get problems$() {
    return this.inner.problems$;
  }
  get cache() {
    return this.inner.cache;
  }
  get namespaceSelector() {
    return this.inner.namespaceSelector;
  }
  get inheritsNamespaces() {
    return this.inner.inheritsNamespaces;
  }
  get inheritsShardSelector() {
    return this.inner.inheritsShardSelector;
  }
  start(options?: { readonly signal?: AbortSignal }) {
    return this.inner.start(options);
  }
  stop() {
    return this.inner.stop();
  }
  changeNamespaces(namespaces: NamespaceSet) {
    return this.inner.changeNamespaces(namespaces);
  }
  changeShardSelector(selector: ShardSelector | undefined) {
    return this.inner.changeShardSelector(selector);
  }
  reverseIndexSize() {
    return this.inner.reverseIndexSize();
  }
  get namespaces() {
    return this.inner.namespaces;
  }
  hasSynced() {
    return this.inner.hasSynced();
  }
  pendingSync() {
    return this.inner.pendingSync();
  }
  statistics() {
    return this.inner.statistics();
  }
  getSecondaryResources(primary: P) {
    return this.inner.getSecondaryResources(primary);
  }
}

// rbacManifest() talks to no server: a kubeconfig pointing nowhere proves it.
function offlineKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromClusterAndUser({ name: 'nowhere', server: 'http://127.0.0.1:9', skipTLSVerify: true }, { name: 'nobody' });
  return kubeConfig;
}

describe('KubeEventSource, implemented by a class other than InformerEventSource', function () {
  this.timeout(60_000);

  it('has its own namespaces listed by rbacManifest, not the controller’s', async () => {
    const operator = new Operator({ kubeConfig: offlineKubeConfig() });
    const reconciler: Reconciler<Widget, KubeClient> = {
      reconcile: () => UpdateControl.noUpdate<Widget>(),
      prepareEventSources: (context) => [
        new DelegatingSource(
          InformerEventSource.from(Kinds.ConfigMap, WidgetKind).withName('stock-maps').withNamespaces(['stock']).build(context),
        ),
      ],
    };
    operator.register(reconciler, { kind: WidgetKind, name: 'widgets', namespaces: ['shop'] });
    const manifest = await operator.rbacManifest();
    const stock = manifest.namespacedRules.get('stock') ?? [];
    expect(stock.flatMap((r) => r.resources)).to.deep.equal(['configmaps']);
    const shop = manifest.namespacedRules.get('shop') ?? [];
    expect(shop.flatMap((r) => r.resources)).not.to.include('configmaps');
  });

  describe('in a running controller', () => {
    const suite = useOperatorSuite({ crd: WIDGET_CRD });

    it('reports its problems as controller events and its cache in the debug view', async () => {
      const ns = await createNamespace(suite.server.kubeConfig);
      suite.operator = new Operator({ kubeConfig: suite.server.kubeConfig });
      const reconciler: Reconciler<Widget, KubeClient> = {
        reconcile: () => UpdateControl.noUpdate<Widget>(),
        prepareEventSources: (context) => [
          new DelegatingSource(
            InformerEventSource.from(Kinds.ConfigMap, WidgetKind)
              .withName('throwing-maps')
              .withSecondaryToPrimaryMapper(() => {
                throw new Error('mapper refuses');
              })
              .build(context),
          ),
        ],
      };
      const controller = suite.operator.register(reconciler, { kind: WidgetKind, namespaces: [ns] });
      const events: ControllerEvent[] = [];
      controller.events$.subscribe((e) => events.push(e));
      const problems: ControllerProblemEvent[] = [];
      controller.problems$.subscribe((p) => problems.push(p));
      await suite.operator.start();

      const name = uniqueName('settings');
      await suite.server.kubeConfig.makeApiClient(CoreV1Api).createNamespacedConfigMap({ namespace: ns, body: { metadata: { name } } });
      await eventually(() => {
        const problem = events.find((e) => e.type === 'problem' && e.source === 'throwing-maps');
        expect(problem, 'the mapper error as a controller problem').to.not.equal(undefined);
        const alone = problems.find((p) => p.source === 'throwing-maps');
        expect(alone, 'the same problem on problems$').to.not.equal(undefined);
        expect(((alone!.error as Error).cause as Error).message).to.equal('mapper refuses');
      });
      expect(problems.every((p) => p.type === 'problem')).to.equal(true);
      const view = controllerDebugView(controller).eventSources.find((s) => s.name === 'throwing-maps');
      expect(view?.cache).to.include({ objects: 1, synced: true });
    });
  });
});
