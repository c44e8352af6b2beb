// A controller whose secondary source is metadata-only (controller-runtime's OnlyMetadata): its
// Widgets count the ConfigMaps they own, found by owner references in a cache of
// PartialObjectMetadata, and read one whole ConfigMap on demand.
import { expect } from 'chai';
import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { ResourceID, UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { createNamespace, createTestCrd, eventually, useTestApiServer } from '@kindex/testing';
import { InformerEventSource, Kinds, KubeClient, Operator, metadataOnly, resourceKind, type ResourceKind } from '@kindex/informer';

interface Widget extends KubernetesObject {
  spec?: { primaryConfigMap?: string };
  status?: { owned?: string[]; onlyMetadata?: boolean; primaryValue?: string };
}

const ConfigMapMetadata = metadataOnly(Kinds.ConfigMap);

describe('a controller with a metadata-only secondary source', function () {
  this.timeout(90_000);
  const server = useTestApiServer({ shared: true });
  let WidgetKind: ResourceKind<Widget>;

  before(async () => {
    const kubeConfig = server().kubeConfig;
    WidgetKind = resourceKind<Widget>(
      await createTestCrd(kubeConfig.makeApiClient(ApiextensionsV1Api), kubeConfig.makeApiClient(CustomObjectsApi), { kind: 'Widget' }),
    );
  });

  const reconciler = (): Reconciler<Widget, KubeClient> => ({
    prepareEventSources: (context) => [
      InformerEventSource.from(ConfigMapMetadata, WidgetKind)
        .withName('config-map-metadata')
        .withReflectorOptions({ backoff: { initialMs: 50, maxMs: 200 } })
        .build(context),
    ],
    async reconcile(widget, context) {
      const owned = context.getSecondaryResources(ConfigMapMetadata);
      const chosen = owned.find((cm) => cm.metadata.name === widget.spec?.primaryConfigMap);
      // The whole object, fetched on demand: the cache has no data.
      const whole =
        chosen === undefined ? undefined : await context.getClient().get(ConfigMapMetadata.objectKind, ResourceID.fromResource(chosen));
      return UpdateControl.patchStatus<Widget>({
        ...widget,
        status: {
          owned: owned.map((cm) => cm.metadata.name!).sort(),
          onlyMetadata: owned.every((cm) => Object.keys(cm).join() === 'kind,apiVersion,metadata' && cm.kind === 'ConfigMap'),
          ...(whole?.data?.['value'] === undefined ? {} : { primaryValue: whole.data['value'] }),
        },
      });
    },
  });

  async function ownedConfigMap(widget: Widget, name: string, value: string): Promise<void> {
    await server()
      .kubeConfig.makeApiClient(CoreV1Api)
      .createNamespacedConfigMap({
        namespace: widget.metadata!.namespace!,
        body: {
          metadata: {
            name,
            ownerReferences: [
              { apiVersion: WidgetKind.apiVersion, kind: 'Widget', name: widget.metadata!.name!, uid: widget.metadata!.uid! },
            ],
          },
          data: { value },
        },
      });
  }

  it('reconciles a Widget when a ConfigMap it owns appears or goes, from owner references in the metadata cache', async () => {
    const { kubeConfig } = server();
    const client = new KubeClient(kubeConfig);
    const ns = await createNamespace(kubeConfig);
    const widget = await client.create(WidgetKind, {
      apiVersion: WidgetKind.apiVersion,
      kind: 'Widget',
      metadata: { name: 'w', namespace: ns },
      spec: { primaryConfigMap: 'w-main' },
    });
    const other = await client.create(WidgetKind, {
      apiVersion: WidgetKind.apiVersion,
      kind: 'Widget',
      metadata: { name: 'other', namespace: ns },
    });
    // One owned before the operator starts (the reverse index is seeded from the list), one after.
    await ownedConfigMap(widget, 'w-main', 'blue');
    await ownedConfigMap(other, 'other-1', 'x');
    const operator = new Operator({ kubeConfig });
    operator.register(reconciler(), {
      kind: WidgetKind,
      name: 'widgets',
      namespaces: [ns],
      reflector: { backoff: { initialMs: 50, maxMs: 200 } },
    });
    const status = async (name: string) => (await client.get(WidgetKind, ResourceID.of(name, ns)))?.status;
    try {
      await operator.start();
      await eventually(
        async () => expect(await status('w')).to.deep.equal({ owned: ['w-main'], onlyMetadata: true, primaryValue: 'blue' }),
        {
          timeoutMs: 20_000,
        },
      );
      await ownedConfigMap(widget, 'w-extra', 'green');
      await eventually(async () => expect((await status('w'))?.owned).to.deep.equal(['w-extra', 'w-main']), { timeoutMs: 20_000 });
      await kubeConfig.makeApiClient(CoreV1Api).deleteNamespacedConfigMap({ name: 'w-extra', namespace: ns });
      await eventually(async () => expect((await status('w'))?.owned).to.deep.equal(['w-main']), { timeoutMs: 20_000 });
      expect(await status('other')).to.deep.equal({ owned: ['other-1'], onlyMetadata: true });
    } finally {
      await operator.stop({ drainTimeoutMs: 5_000 });
      await client.registry?.stopAll();
    }
  });
});
