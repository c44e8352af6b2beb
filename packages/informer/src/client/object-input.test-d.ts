// Type-level tests: checked by `tsc -b`, never run. Each @ts-expect-error must stay an error.
// KubeClient's create, update and apply take an ObjectInput<R>: apiVersion and kind may be left
// out (the kind written to fills them in), even where R declares them required; everything else
// R requires stays required, and a given apiVersion or kind must fit R.
import type { KubernetesObject } from '@kindex/core';
import { Kinds, resourceKind, type KubeClient, type ObjectInput, type ResourceType } from '../index.js';

interface Site extends KubernetesObject {
  spec: { host: string };
}
/** A type that pins apiVersion and kind to literals, as generated types often do. */
interface PinnedSite extends KubernetesObject {
  apiVersion: 'example.com/v1';
  kind: 'PinnedSite';
  spec: { host: string };
}
const SiteKind = resourceKind<Site>({ group: 'example.com', version: 'v1', kind: 'Site', plural: 'sites', namespaced: true });
const PinnedKind = resourceKind<PinnedSite>({
  group: 'example.com',
  version: 'v1',
  kind: 'PinnedSite',
  plural: 'pinnedsites',
  namespaced: true,
});
declare const client: KubeClient;
declare const site: Site;
declare const pinned: PinnedSite;

// apiVersion and kind left out: each write still returns the kind's object type.
const created: Site = await client.create(SiteKind, { metadata: { name: 'a', namespace: 'web' }, spec: { host: 'a' } });
const updated: Site = await client.update(SiteKind, { metadata: { name: 'a', namespace: 'web' }, spec: { host: 'b' } }, 'status');
const applied: Site = await client.apply(SiteKind, { metadata: { name: 'a', namespace: 'web' }, spec: { host: 'c' } });
// ... even where the type requires them.
const createdPinned: PinnedSite = await client.create(PinnedKind, { metadata: { name: 'a', namespace: 'web' }, spec: { host: 'a' } });
const updatedPinned: PinnedSite = await client.update(PinnedKind, { metadata: { name: 'a' }, spec: { host: 'a' } });
const appliedPinned: PinnedSite = await client.apply(PinnedKind, { metadata: { name: 'a' }, spec: { host: 'a' } });
const pinnedKind: 'PinnedSite' = createdPinned.kind;
// Whole objects (as read from the server) still fit.
const recreated: Site = await client.create(SiteKind, site);
const reapplied: PinnedSite = await client.apply(PinnedKind, pinned);
const configMap = await client.create(Kinds.ConfigMap, { metadata: { name: 'a', namespace: 'web' }, data: { k: 'v' } });
const configMapData: { [key: string]: string } | undefined = configMap.data;

// The rest of the type still binds.
// @ts-expect-error spec is required even when apiVersion and kind are left out
await client.create(PinnedKind, { metadata: { name: 'a' } });
// @ts-expect-error a pinned kind must be the type's
await client.update(PinnedKind, { kind: 'Other', metadata: { name: 'a' }, spec: { host: 'a' } });
// @ts-expect-error apiVersion is a string
await client.apply(SiteKind, { apiVersion: 1, metadata: { name: 'a' }, spec: { host: 'a' } });
// @ts-expect-error ConfigMap data values are strings
await client.update(Kinds.ConfigMap, { metadata: { name: 'a' }, data: { k: 1 } });

// An untyped ResourceType still infers R from the object written.
declare const plainType: ResourceType;
const fromLiteral = await client.create(plainType, { metadata: { name: 'a' }, spec: { size: 1 } });
const size: number = fromLiteral.spec.size;
const fromObject: Site = await client.update(plainType, site);

// Generic code passes its object type through.
async function write<P extends KubernetesObject>(kind: ResourceType & { readonly __resource?: P }, object: P): Promise<P> {
  return client.apply(kind, object);
}
const input: ObjectInput<PinnedSite> = { metadata: { name: 'a' }, spec: { host: 'a' } };
// @ts-expect-error an ObjectInput is not yet the object: its kind may be missing
const notYet: PinnedSite = input;

void [
  created,
  updated,
  applied,
  updatedPinned,
  appliedPinned,
  pinnedKind,
  recreated,
  reapplied,
  configMapData,
  size,
  fromObject,
  write,
  notYet,
];
