/**
 * Mapper contracts: how an event source links secondary resources to the primaries they affect.
 *
 * - {@link SecondaryToPrimaryMapper}: which primaries a secondary concerns. Runs on every event
 *   of the secondary; its results feed the {@link PrimaryToSecondaryIndex} and the work queue.
 * - {@link PrimaryToSecondaryMapper}: which secondaries a primary reads. When an event source
 *   has one, it answers `getSecondaryResources` with it and keeps no reverse index (JOSDK).
 *
 * Built-ins here are Kubernetes-agnostic: {@link Mappers.fromIndex} (the Job/Cluster pattern).
 * Owner-reference, annotation and label mappers live in `@kindex/informer`.
 *
 * @module
 */
import type { KubernetesObject } from '../resource/kubernetes-object.js';
import { ResourceID } from '../resource/resource-id.js';
import type { StoreReader } from '../store/store-snapshot.js';

/**
 * The primaries a secondary resource concerns. Must be a pure function of the object: it is
 * called once per event and its result is what the reverse index records.
 *
 * @example
 * ```ts
 * import { ResourceID, type SecondaryToPrimaryMapper } from '@kindex/core';
 *
 * // A Pod belongs to the WebApp named in its `app` label.
 * const podToWebApp: SecondaryToPrimaryMapper = (pod) => {
 *   const app = pod.metadata?.labels?.['app'];
 *   return app ? [ResourceID.of(app, pod.metadata?.namespace)] : [];
 * };
 * ```
 */
export type SecondaryToPrimaryMapper<S extends KubernetesObject = KubernetesObject> = (secondary: S) => Iterable<ResourceID>;

/**
 * Marks a {@link SecondaryToPrimaryMapper} whose result depends only on what `inputsEqual`
 * compares: when a secondary's update leaves those inputs equal, the reverse index keeps the
 * previous result and does not call the mapper (the common MODIFIED event that changes data but
 * not ownership costs no mapping and no allocation). The owner-reference mapper of
 * `@kindex/informer` carries one; a mapper that reads anything else (another cache, the time)
 * must not.
 * @returns the same mapper, carrying `inputsEqual`.
 * @example
 * ```ts
 * import { ResourceID, withInputsEqual, type KubernetesObject } from '@kindex/core';
 *
 * // The app label alone decides the primary: skip the mapper when it did not change.
 * const byAppLabel = withInputsEqual(
 *   (pod: KubernetesObject) => [ResourceID.of(pod.metadata!.labels!['app']!, pod.metadata?.namespace)],
 *   (a, b) => a.metadata?.labels?.['app'] === b.metadata?.labels?.['app'],
 * );
 * ```
 */
export function withInputsEqual<S extends KubernetesObject>(
  mapper: SecondaryToPrimaryMapper<S>,
  inputsEqual: (a: S, b: S) => boolean,
): SecondaryToPrimaryMapper<S> & MapperInputsEqual<S> {
  return Object.assign((secondary: S) => mapper(secondary), { inputsEqual });
}

/**
 * What a mapper made by {@link withInputsEqual} carries.
 *
 * @example
 * ```ts
 * import { ResourceID, withInputsEqual, type KubernetesObject, type MapperInputsEqual } from '@kindex/core';
 *
 * const mapper = withInputsEqual((o: KubernetesObject) => [ResourceID.of(o.metadata!.name!)], () => true);
 * const carried: MapperInputsEqual<KubernetesObject> = mapper;
 * ```
 */
export interface MapperInputsEqual<S extends KubernetesObject> {
  /** Whether two versions of a secondary give the mapper the same inputs, so the same result. */
  readonly inputsEqual: (a: S, b: S) => boolean;
}

/** The `inputsEqual` a mapper carries (see {@link withInputsEqual}), if any. */
export function inputsEqualOf<S extends KubernetesObject>(mapper: SecondaryToPrimaryMapper<S>): ((a: S, b: S) => boolean) | undefined {
  const equal = (mapper as { inputsEqual?: unknown }).inputsEqual;
  return typeof equal === 'function' ? (equal as (a: S, b: S) => boolean) : undefined;
}

/**
 * The secondaries a primary resource reads (replaces the reverse index when configured).
 *
 * @example
 * ```ts
 * import { ResourceID, type KubernetesObject, type PrimaryToSecondaryMapper } from '@kindex/core';
 *
 * // A WebApp's ConfigMap is named after it, so the lookup needs no index.
 * const webAppToConfigMap: PrimaryToSecondaryMapper<KubernetesObject> = (webApp) => [
 *   ResourceID.of(`${webApp.metadata!.name!}-config`, webApp.metadata?.namespace),
 * ];
 * ```
 */
export type PrimaryToSecondaryMapper<P extends KubernetesObject = KubernetesObject> = (primary: P) => Iterable<ResourceID>;

/**
 * The part of a store {@link Mappers.fromIndex} reads: an index lookup by value.
 *
 * @example
 * ```ts
 * import { IndexedStore, Mappers, type IndexLookup } from '@kindex/core';
 *
 * // Any store with indexKeys can answer the mapper's lookups.
 * const primaries: IndexLookup = new IndexedStore({ indexers: { bySecret: (o) => [String(o.metadata?.annotations?.['secret'])] } });
 * const toPrimaries = Mappers.fromIndex(primaries, 'bySecret', (secret) => secret.metadata!.name!);
 * ```
 */
export type IndexLookup = Pick<StoreReader, 'indexKeys'>;

/**
 * Generic mappers.
 *
 * @example
 * ```ts
 * import { IndexedStore, Mappers, type KubernetesObject } from '@kindex/core';
 * type Job = KubernetesObject & { spec: { clusterName: string } };
 *
 * // Cluster events go to every Job whose spec names the cluster, through an index on the Jobs.
 * const jobs = new IndexedStore<Job>({ indexers: { byCluster: (job) => [job.spec.clusterName] } });
 * const clusterToJobs = Mappers.fromIndex(jobs, 'byCluster', (cluster: KubernetesObject) => cluster.metadata!.name!);
 * ```
 */
export const Mappers = {
  /**
   * A secondary-to-primary mapper that looks the secondary up in an index of the primary cache:
   * O(1) per event instead of a scan of every primary.
   *
   * @param primaries the primary cache (an {@link IndexedStore}, or a snapshot of one).
   * @param indexName an index of that cache, added with `addIndexer`.
   * @param toIndexValue the value the index holds the secondary's primaries under.
   * @example
   * ```ts
   * import { IndexedStore, Mappers, ResourceID, type KubernetesObject } from '@kindex/core';
   * type Cluster = KubernetesObject;
   * const jobs = new IndexedStore<KubernetesObject & { spec: { clusterName: string } }>();
   * jobs.addIndexer('byCluster', (job) => [ResourceID.keyOf(job.spec.clusterName, job.metadata?.namespace)]);
   * const toPrimaryIds = Mappers.fromIndex<Cluster>(jobs, 'byCluster', (cluster) => ResourceID.keyOfResource(cluster));
   * ```
   */
  fromIndex<S extends KubernetesObject = KubernetesObject>(
    primaries: IndexLookup,
    indexName: string,
    toIndexValue: (secondary: S) => string,
  ): SecondaryToPrimaryMapper<S> {
    return (secondary) => Array.from(primaries.indexKeys(indexName, toIndexValue(secondary)), (key) => ResourceID.parse(key));
  },
};
