import {
  ResourceID,
  TerminalError,
  UpdateControl,
  type Context,
  type EventSourceContext,
  type KubernetesObject,
  type Reconciler,
} from '@kindex/core';
import { InformerEventSource, Kinds, type KubeClient } from '@kindex/informer';
import { ConfigBundleKind, type ConfigBundle } from './model.js';

type ConfigMap = KubernetesObject & { data?: Record<string, string> };

/** Label on the children, so the ConfigMap cache holds only them. */
export const BUNDLE_LABEL = 'sample.kindex.dev/bundle';

/**
 * Materializes a ConfigBundle as owned ConfigMaps, one per entry, and reports in its status how
 * many exist. Children find their bundle through owner references (the default mapper);
 * deleting the bundle deletes them (Kubernetes garbage collection follows the references).
 */
export class ConfigBundleReconciler implements Reconciler<ConfigBundle, KubeClient> {
  #configMaps: InformerEventSource<ConfigMap, ConfigBundle> | undefined;

  prepareEventSources(context: EventSourceContext<ConfigBundle, KubeClient>): InformerEventSource<ConfigMap, ConfigBundle>[] {
    this.#configMaps = InformerEventSource.from<ConfigMap, ConfigBundle>(Kinds.ConfigMap, ConfigBundleKind)
      .withName('bundle-configmaps')
      .withLabelSelector(BUNDLE_LABEL)
      .build(context);
    return [this.#configMaps];
  }

  async reconcile(bundle: ConfigBundle, context: Context<ConfigBundle, KubeClient>): Promise<UpdateControl<ConfigBundle>> {
    const client = context.getClient();
    const namespace = bundle.metadata!.namespace!;
    const children = context.getSecondaryResources(Kinds.ConfigMap) as ConfigMap[];
    const wanted = new Map(Object.entries(bundle.spec.entries ?? {}).map(([k, v]) => [`${bundle.metadata!.name}-${k}`, v]));
    const ownerReference = {
      apiVersion: 'sample.kindex.dev/v1',
      kind: 'ConfigBundle',
      name: bundle.metadata!.name!,
      uid: bundle.metadata!.uid!,
      controller: true,
      blockOwnerDeletion: true,
    };
    for (const [name, value] of wanted) {
      // Not among our children: maybe an orphan of that name sits in the cache (left by a delete
      // with propagationPolicy Orphan); reading the event source's cache directly finds it.
      const existing =
        children.find((c) => c.metadata?.name === name) ?? this.#configMaps?.cache.snapshot().peek(ResourceID.of(name, namespace));
      if (existing === undefined) {
        await client.create(Kinds.ConfigMap, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace, labels: { [BUNDLE_LABEL]: bundle.metadata!.name! }, ownerReferences: [ownerReference] },
          data: { value },
        });
        continue;
      }
      const refs = existing.metadata?.ownerReferences ?? [];
      const controller = refs.find((r) => r.controller === true);
      if (controller !== undefined && controller.uid !== bundle.metadata!.uid) {
        throw new TerminalError(`ConfigMap ${namespace}/${name} is controlled by ${controller.kind} ${controller.name}`, {
          objectKey: `${namespace}/${name}`,
          field: 'metadata.ownerReferences',
        });
      }
      if (controller === undefined) {
        // Adopt it, as controller-runtime's controllers adopt orphans that match them.
        await client.patch(Kinds.ConfigMap, ResourceID.of(name, namespace), {
          metadata: { ownerReferences: [...refs, ownerReference], labels: { [BUNDLE_LABEL]: bundle.metadata!.name! } },
          data: { value },
        });
      } else if (existing.data?.['value'] !== value) {
        await client.patch(Kinds.ConfigMap, ResourceID.of(name, namespace), { data: { value } });
      }
    }
    for (const child of children) {
      if (!wanted.has(child.metadata!.name!)) await client.delete(Kinds.ConfigMap, ResourceID.of(child.metadata!.name!, namespace));
    }
    const present = children.filter((c) => wanted.has(c.metadata!.name!)).length;
    const status = { configMaps: present, ready: present === wanted.size };
    if (bundle.status?.configMaps === status.configMaps && bundle.status?.ready === status.ready) return UpdateControl.noUpdate();
    return UpdateControl.patchStatus<ConfigBundle>({ ...bundle, status });
  }
}
