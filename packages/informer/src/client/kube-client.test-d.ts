// Type-level tests: checked by `tsc -b`, never run. Each @ts-expect-error must stay an error.
// KubeClient's reads and writes of a typed ResourceKind<T> return T without a type argument
// and an untyped ResourceType keeps its old behaviour.
import { ResourceID, type KubernetesObject } from '@kindex/core';
import {
  InformerRegistry,
  Kinds,
  resourceKind,
  type InformerLease,
  type KubeClient,
  type ObjectOfKind,
  type ResourceType,
} from '../index.js';

interface Site extends KubernetesObject {
  spec: { host: string };
}
const SiteKind = resourceKind<Site>({ group: 'example.com', version: 'v1', kind: 'Site', plural: 'sites', namespaced: true });
type ConfigMap = ObjectOfKind<typeof Kinds.ConfigMap>;
declare const client: KubeClient;
declare const site: Site;
const id = ResourceID.of('shop', 'web');

// get, list, create, update, patch and apply infer the object type from the kind.
const got = await client.get(SiteKind, id);
const host: string | undefined = got?.spec.host;
const listed = await client.list(SiteKind, { namespace: 'web' });
const hosts: string[] = listed.map((s) => s.spec.host);
const created = await client.create(SiteKind, site);
const createdHost: string = created.spec.host;
const updated = await client.update(SiteKind, site, 'status');
const updatedHost: string = updated.spec.host;
const patched = await client.patch(SiteKind, id, { spec: { host: 'b' } });
const patchedHost: string = patched.spec.host;
const applied = await client.apply(SiteKind, {
  apiVersion: 'example.com/v1',
  kind: 'Site',
  metadata: { name: 'shop' },
  spec: { host: 'a' },
});
const appliedHost: string = applied.spec.host;

// Built-in kinds carry client-node's JSON shape.
const configMap = await client.get(Kinds.ConfigMap, id);
const data: { [key: string]: string } | undefined = configMap?.data;
const configMaps: ConfigMap[] = await client.list(Kinds.ConfigMap, { labelSelector: 'app=web' });
const createdConfigMap = await client.create(Kinds.ConfigMap, { metadata: { name: 'a', namespace: 'web' }, data: { k: 'v' } });
const createdData: { [key: string]: string } | undefined = createdConfigMap.data;

// The kind binds what may be written.
// @ts-expect-error a Site needs spec.host
await client.create(SiteKind, { metadata: { name: 'shop', namespace: 'web' } });
// @ts-expect-error ConfigMap data values are strings
await client.create(Kinds.ConfigMap, { metadata: { name: 'a', namespace: 'web' }, data: { k: 1 } });
// @ts-expect-error a ConfigMap read is no Site (it has no spec)
const wrong: Site | undefined = await client.get(Kinds.ConfigMap, id);

// An untyped ResourceType: objects are KubernetesObjects, or what the caller names or writes.
declare const plainType: ResourceType;
const plain: KubernetesObject | undefined = await client.get(plainType, id);
const named: Site | undefined = await client.get<Site>(plainType, id);
const namedList: Site[] = await client.list<Site>(plainType);
const fromObject: Site = await client.create(plainType, site);

// client.registry is client/'s narrow view (KubeClientRegistry), undefined until a cache makes
// one; cache/'s InformerRegistry.of(client) is the typed registry users acquire from and hand to
// caches and monitors.
const informers: InformerRegistry = InformerRegistry.of(client);
const lease: InformerLease<Site> = informers.acquire({ kubeConfig: client.kubeConfig, type: SiteKind });
const leasedHost: string | undefined = lease.informer.store.list()[0]?.spec.host;
const asRegistry: InformerRegistry = client.registryOf(InformerRegistry);
const keyed: string = informers.keyOf({ kubeConfig: client.kubeConfig, type: SiteKind });
// @ts-expect-error the client's own view names only what client/ needs of a registry (no acquire, no keyOf)
const narrow: InformerRegistry | undefined = client.registry;
// @ts-expect-error a look-alike object is not a registry: InformerRegistry's private state is part of the contract
const fakeRegistry: InformerRegistry = { size: 0, stopAll: async () => {} };

void [
  lease,
  leasedHost,
  asRegistry,
  keyed,
  fakeRegistry,
  narrow,
  host,
  hosts,
  createdHost,
  updatedHost,
  patchedHost,
  appliedHost,
  data,
  configMaps,
  createdData,
  wrong,
  plain,
  named,
  namedList,
  fromObject,
];
