import { installCrds as install, type CustomResourceDefinition, type KubeClient } from '@kindex/informer';
import { ClusterKind, ConfigBundleKind, JobKind } from './model.js';

/** The sample's CRDs, generated from the definitions in model.ts (crds/ holds their YAML). */
export function sampleCrds(): CustomResourceDefinition[] {
  return [ClusterKind.crd, ConfigBundleKind.crd, JobKind.crd];
}

/**
 * Creates the sample's CRDs that are missing (leaving existing ones alone, so the Deployment's
 * ClusterRole needs only get and create on them) and waits until each is Established.
 */
export async function installCrds(client: KubeClient): Promise<void> {
  await install(client.kubeConfig, sampleCrds(), { onlyIfMissing: true });
}
