// Type-level tests: checked by `tsc -b`, never run. Each @ts-expect-error must stay an error.
import { UpdateControl, type Context, type EventSource, type KubernetesObject, type Reconciler } from '@kindex/core';
import { InformerEventSource, Kinds, resourceKind, type ObjectOfKind } from '../index.js';

interface Site extends KubernetesObject {
  spec: { host: string };
}
interface Other extends KubernetesObject {
  spec: { size: number };
}
const SiteKind = resourceKind<Site>({ group: 'example.com', version: 'v1', kind: 'Site', plural: 'sites', namespaced: true });
const OtherKind = resourceKind<Other>({ group: 'example.com', version: 'v1', kind: 'Other', plural: 'others', namespaced: true });
type ConfigMap = ObjectOfKind<typeof Kinds.ConfigMap>;

const ConfigMaps = InformerEventSource.handle(Kinds.ConfigMap, SiteKind);

const reconciler: Reconciler<Site> = {
  reconcile(site, context) {
    // Narrowed to the class, with its cache reads, without a cast.
    const source: InformerEventSource<ConfigMap, Site> = context.getEventSource(ConfigMaps);
    const listed: ConfigMap[] = source.list(site.metadata?.namespace);
    const indexed: ConfigMap[] = context.getEventSource(ConfigMaps).byIndex('byHost', site.spec.host);
    const one: ConfigMap | undefined = context.getEventSource(ConfigMaps).get(`${site.metadata?.namespace}/settings`);
    // The plain lookup by type still gives the EventSource interface only.
    const plain: EventSource<ConfigMap, Site> = context.getEventSource(Kinds.ConfigMap);
    // The interface has no list(): that needs the handle.
    const noList: 'list' extends keyof typeof plain ? 'has list' : 'no list' = 'no list';
    // @ts-expect-error the handle's objects are ConfigMaps, which have no spec
    void source.list()[0]?.spec;
    void [listed, indexed, one, noList, plain];
    return UpdateControl.noUpdate();
  },
};

declare const otherContext: Context<Other>;
// @ts-expect-error a handle for Site primaries does not fit a controller of Other primaries
otherContext.getEventSource(ConfigMaps);
const forOther = otherContext.getEventSource(InformerEventSource.handle(Kinds.ConfigMap, OtherKind, 'named'));
const otherSource: InformerEventSource<ConfigMap, Other> = forOther;

void [reconciler, otherSource];
