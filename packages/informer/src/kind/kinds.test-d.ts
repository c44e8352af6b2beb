// Type-level tests: checked by `tsc -b`, never run. Each @ts-expect-error must stay an error.
import type { KubernetesObject, Reconciler } from '@kindex/core';
import { UpdateControl } from '@kindex/core';
import { InformerEventSource, Kinds, resourceKind, type KubeClient, type ObjectOfKind, type ResourceKind } from '../index.js';

interface Site extends KubernetesObject {
  spec: { host: string };
}
const SiteKind = resourceKind<Site>({ group: 'example.com', version: 'v1', kind: 'Site', plural: 'sites', namespaced: true });

// Each built-in kind carries its object type.
type ConfigMap = ObjectOfKind<typeof Kinds.ConfigMap>;
const data: { [key: string]: string } | undefined = ({} as ConfigMap).data;
const image: string | undefined = ({} as ObjectOfKind<typeof Kinds.Pod>).spec?.containers[0]?.image;
const ports: number | undefined = ({} as ObjectOfKind<typeof Kinds.Service>).spec?.ports?.[0]?.port;
const holder: string | undefined = ({} as ObjectOfKind<typeof Kinds.Lease>).spec?.holderIdentity;
// Timestamps are the wire's strings, not client-node's Dates.
const renewed: string | undefined = ({} as ObjectOfKind<typeof Kinds.Lease>).spec?.renewTime;
// @ts-expect-error a ConfigMap has no spec
void ({} as ConfigMap).spec;
// @ts-expect-error ConfigMap data values are strings
const wrongData: { [key: string]: number } | undefined = ({} as ConfigMap).data;
// Built-in kinds are still KubernetesObjects.
const asKind: ResourceKind<KubernetesObject> = Kinds.Secret;

const reconciler: Reconciler<Site, KubeClient> = {
  reconcile(site, context) {
    // The secondary's type comes from the kind: no type argument, no cast.
    const pages: ConfigMap[] = context.getSecondaryResources(Kinds.ConfigMap);
    const html: string | undefined = pages[0]?.data?.['index.html'];
    const secret = context.getSecondaryResource(Kinds.Secret);
    const encoded: string | undefined = secret?.data?.['token'];
    // @ts-expect-error a Secret has no spec (a Pod would)
    void secret?.spec;
    void [html, encoded];
    return UpdateControl.noUpdate();
  },
  prepareEventSources: (context) => [
    InformerEventSource.from(Kinds.ConfigMap, SiteKind)
      // The builder's callbacks see typed objects too.
      .withOnAddFilter((cm) => cm.data?.['enabled'] === 'true')
      .build(context),
  ],
};

void [data, image, ports, holder, renewed, wrongData, asKind, reconciler];
