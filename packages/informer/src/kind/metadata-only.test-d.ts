// Type-level tests of metadata-only kinds: checked by `tsc -b`, never run. Each @ts-expect-error must stay an error.
import type { KubernetesObject, Reconciler } from '@kindex/core';
import { ResourceID, UpdateControl } from '@kindex/core';
import { InformerEventSource, Kinds, metadataOnly, type KubeClient, type ObjectOfKind, type PartialObjectMetadata } from '../index.js';

const ConfigMapMetadata = metadataOnly(Kinds.ConfigMap);
type ConfigMap = ObjectOfKind<typeof Kinds.ConfigMap>;

// The cache's objects are PartialObjectMetadata: metadata, kind and apiVersion always there, no data.
const cached: PartialObjectMetadata = {} as ObjectOfKind<typeof ConfigMapMetadata>;
const name: string | undefined = cached.metadata.name;
const kind: string = cached.kind;
// @ts-expect-error a metadata-only object has no data
void ({} as ObjectOfKind<typeof ConfigMapMetadata>).data;

const reconciler: Reconciler<KubernetesObject, KubeClient> = {
  prepareEventSources: (context) => [InformerEventSource.from(ConfigMapMetadata, Kinds.Secret).build(context)],
  async reconcile(_primary, context) {
    // getSecondaryResources reads PartialObjectMetadata for the metadata-only token.
    const owned: PartialObjectMetadata[] = context.getSecondaryResources(ConfigMapMetadata);
    // @ts-expect-error not typed as whole ConfigMaps: no data
    void owned[0]?.data;
    // objectKind fetches the whole object, typed.
    const whole: ConfigMap | undefined = await context.getClient().get(ConfigMapMetadata.objectKind, ResourceID.fromResource(owned[0]!));
    void whole;
    return UpdateControl.noUpdate();
  },
};

void [name, kind, reconciler];
