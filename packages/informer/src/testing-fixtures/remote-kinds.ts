import type { KubernetesObject } from '@kindex/core';
import { resourceKind } from '../kind/resource-kind.js';

// The Job and Cluster kinds of the two-cluster tests: a Job in cluster A, a Cluster in cluster B.

export type Job = KubernetesObject & { spec?: { image?: string } };
export type Cluster = KubernetesObject & { spec?: { size?: number } };
export const JobKind = resourceKind<Job>({ group: 'test.kindex.dev', version: 'v1', kind: 'Job', plural: 'jobs', namespaced: true });
export const ClusterKind = resourceKind<Cluster>({
  group: 'test.kindex.dev',
  version: 'v1',
  kind: 'Cluster',
  plural: 'clusters',
  namespaced: true,
});
