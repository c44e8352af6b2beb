import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { ResourceID, type KubernetesObject } from '@kindex/core';
import { KubeClient, resourceKind } from '@kindex/informer';

const CRD = resourceKind({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
});

/** The sample's CRD manifests, from `crds/`. */
export function sampleCrds(): KubernetesObject[] {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'crds');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => parse(readFileSync(join(dir, f), 'utf8')) as KubernetesObject);
}

/** Creates the sample's CRDs (leaving existing ones alone) and waits until each is served. */
export async function installCrds(client: KubeClient): Promise<void> {
  for (const crd of sampleCrds()) {
    const name = crd.metadata!.name!;
    if ((await client.get(CRD, ResourceID.of(name))) === undefined) await client.create(CRD, crd);
    const spec = (crd as unknown as { spec: { group: string; names: { plural: string; kind: string }; versions: { name: string }[] } })
      .spec;
    const kind = resourceKind({
      group: spec.group,
      version: spec.versions[0]!.name,
      kind: spec.names.kind,
      plural: spec.names.plural,
      namespaced: true,
    });
    for (let i = 0; ; i++) {
      try {
        await client.get(kind, ResourceID.of('probe', 'default'));
        break;
      } catch (error) {
        if (i > 100) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
}
