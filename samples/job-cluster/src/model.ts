import type { KubernetesObject } from '@kindex/core';
import { resourceKind } from '@kindex/informer';

/** A cluster jobs run on; knows nothing of its jobs. */
export interface Cluster extends KubernetesObject {
  spec: { clusterValue: string };
}

/** A job assigned to a cluster by name (same namespace). */
export interface Job extends KubernetesObject {
  spec: { clusterName: string };
  status?: { valueFromCluster?: string };
}

/** A set of key/value entries, materialized as one owned ConfigMap per entry. */
export interface ConfigBundle extends KubernetesObject {
  spec: { entries: Record<string, string> };
  status?: { configMaps?: number; ready?: boolean };
}

export const ClusterKind = resourceKind<Cluster>({
  group: 'sample.kindex.dev',
  version: 'v1',
  kind: 'Cluster',
  plural: 'clusters',
  namespaced: true,
});
export const JobKind = resourceKind<Job>({ group: 'sample.kindex.dev', version: 'v1', kind: 'Job', plural: 'jobs', namespaced: true });
export const ConfigBundleKind = resourceKind<ConfigBundle>({
  group: 'sample.kindex.dev',
  version: 'v1',
  kind: 'ConfigBundle',
  plural: 'configbundles',
  namespaced: true,
});
