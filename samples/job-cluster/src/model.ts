// The sample's custom resources, defined once in TypeScript: the types, the resource kinds and the
// CRDs in crds/ (generated: `pnpm run crds`, checked current by integration-tests' sample-crds test).
import Type from 'typebox';
import { KubeType, customResource, type ObjectOfKind } from '@kindex/informer';

/** A cluster jobs run on; knows nothing of its jobs. */
export const ClusterKind = customResource({
  group: 'sample.kindex.dev',
  kind: 'Cluster',
  plural: 'clusters',
  versions: { v1: { spec: Type.Object({ clusterValue: Type.String() }), status: KubeType.AnyObject() } },
});
export type Cluster = ObjectOfKind<typeof ClusterKind>;

/** A job assigned to a cluster by name (same namespace). */
export const JobKind = customResource({
  group: 'sample.kindex.dev',
  kind: 'Job',
  plural: 'jobs',
  versions: {
    v1: {
      spec: Type.Object({ clusterName: Type.String() }),
      status: Type.Object({ valueFromCluster: Type.Optional(Type.String()) }),
    },
  },
});
export type Job = ObjectOfKind<typeof JobKind>;

/** A set of key/value entries, materialized as one owned ConfigMap per entry. */
export const ConfigBundleKind = customResource({
  group: 'sample.kindex.dev',
  kind: 'ConfigBundle',
  plural: 'configbundles',
  versions: {
    v1: {
      spec: Type.Object({ entries: Type.Record(Type.String(), Type.String()) }),
      status: Type.Object({ configMaps: Type.Optional(Type.Integer()), ready: Type.Optional(Type.Boolean()) }),
    },
  },
});
export type ConfigBundle = ObjectOfKind<typeof ConfigBundleKind>;
