// Fixtures of the webhook tests and the round-trip bench. No tests here.
import { ResourceID, type KubernetesObject } from '@kindex/core';
import type { KubeClient } from '../index.js';
import { Crds } from './internal/webhook-kinds.js';

/** Creates a WebPage CRD `webpages.<group>` with the versions asked for (the first one stored), its spec free-form; returns a function that deletes it. */
export async function createWebPageCrd(client: KubeClient, group: string, versions: readonly string[]): Promise<() => Promise<void>> {
  const schema = {
    openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
  };
  await client.create(Crds, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `webpages.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'webpages', singular: 'webpage', kind: 'WebPage', listKind: 'WebPageList' },
      versions: versions.map((name, i) => ({ name, served: true, storage: i === 0, schema })),
    },
  } as KubernetesObject);
  return async () => void (await client.delete(Crds, ResourceID.of(`webpages.${group}`)));
}
