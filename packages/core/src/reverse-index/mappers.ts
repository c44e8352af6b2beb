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
 */
export type SecondaryToPrimaryMapper<S extends KubernetesObject = KubernetesObject> = (secondary: S) => Iterable<ResourceID>;

/** The secondaries a primary resource reads (replaces the reverse index when configured). */
export type PrimaryToSecondaryMapper<P extends KubernetesObject = KubernetesObject> = (primary: P) => Iterable<ResourceID>;

/** The part of a store {@link Mappers.fromIndex} reads: an index lookup by value. */
export type IndexLookup = Pick<StoreReader, 'indexKeys'>;

/** Generic mappers. */
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
