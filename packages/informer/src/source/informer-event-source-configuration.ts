import type {
  EventSourceContext,
  EventTransform,
  EventHandler,
  KubernetesObject,
  Predicate,
  PrimaryToSecondaryMapper,
  SecondaryToPrimaryMapper,
  ShardSelector,
} from '@kindex/core';
import type { NamespaceSet } from '../cache/informer-cache-options.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import type { KubeClient } from '../client/kube-client.js';
import type { ObjectTransform } from '../kind/object-transform.js';
import type { RemoteCluster } from './remote-cluster.js';
import type { ReflectorTuningOptions } from '../reflector/reflector-options.js';

/**
 * Which namespaces an event source watches: a set, the controller's (`'inherit'`), or those
 * whose Namespace object matches a label selector, followed at run time.
 *
 * @example
 * ```ts
 * import type { InformerEventSourceConfiguration, NamespaceChoice } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * declare const configuration: InformerEventSourceConfiguration<KubernetesObject, KubernetesObject>;
 *
 * // 'inherit' (the default) follows the controller's namespaces, also when they change at run time.
 * const namespaces: NamespaceChoice = configuration.namespaces;
 * const follows = namespaces === 'inherit';
 * ```
 */
export type NamespaceChoice = NamespaceSet | 'inherit' | { readonly selector: string };

/**
 * Configuration of an {@link InformerEventSource}; build it with {@link InformerEventSource.from}.
 *
 * @example
 * ```ts
 * import { InformerEventSource, Kinds, type InformerEventSourceConfiguration } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 *
 * // The builder's result before build(): check it in a unit test of prepareEventSources.
 * const configuration: InformerEventSourceConfiguration<KubernetesObject, KubernetesObject> = InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap)
 *   .withLabelSelector('app=web')
 *   .configuration();
 * console.log(configuration.name, configuration.labelSelector, configuration.namespaces);
 * ```
 */
export interface InformerEventSourceConfiguration<R extends KubernetesObject, P extends KubernetesObject> {
  /**
   * The secondaries' kind. A kind made with `metadataOnly(kind)` makes this a metadata-only source
   * (controller-runtime's OnlyMetadata): its cache, triggers and `getSecondaryResources` hold
   * `PartialObjectMetadata`, read with `as=PartialObjectMetadata` from the server.
   */
  readonly kind: ResourceKind<R>;
  /** Undefined for a standalone source built without a primary kind. */
  readonly primaryKind: ResourceKind<P> | undefined;
  /** Defaults to the kind's name (`group/version/Kind`). */
  readonly name: string;
  readonly labelSelector: string | undefined;
  readonly fieldSelector: string | undefined;
  /** Defaults to `'inherit'`: the controller's namespaces, following its changes. */
  readonly namespaces: NamespaceChoice;
  /**
   * Which shard ranges to cache: `'inherit'` takes the controller's shard selector when it
   * shards by namespace (and follows its changes), and none otherwise; `'none'` caches every
   * object. Defaults to `'inherit'`.
   */
  readonly shardSelector: ShardSelector | 'inherit' | 'none';
  /** Defaults to the owner references of the primary kind. */
  readonly toPrimaryIds: SecondaryToPrimaryMapper<R>;
  /** When set, `getSecondaryResources` uses it and no reverse index is kept. */
  readonly toSecondaryIds: PrimaryToSecondaryMapper<P> | undefined;
  /** Filters on the secondary's events, ANDed. Defaults to none (everything passes). */
  readonly filter: Predicate<R> | undefined;
  /**
   * kopf's stealth mode (see {@link InformerEventSourceBuilder.withStealthFilter}), applied to
   * each event before `filter`. Defaults to undefined (off).
   */
  readonly stealth: EventTransform<R> | undefined;
  /**
   * Maps events to the primaries to reconcile instead of the reverse index's `P_new ∪ P_old`
   * (controller-runtime style). The index is still kept for `getSecondaryResources`.
   * Defaults to undefined.
   */
  readonly handler: EventHandler<R> | undefined;
  readonly transform: ObjectTransform<R> | null | undefined;
  readonly reflector: ReflectorTuningOptions | undefined;
  /** Another cluster to watch instead of the operator's own (see {@link RemoteCluster}). Defaults to undefined (the operator's). */
  readonly cluster: RemoteCluster | undefined;
}

/**
 * The context a kindex controller hands to `prepareEventSources`: core's, plus controller-wide filters.
 *
 * @example
 * ```ts
 * import { InformerEventSource, Kinds, type KubeClient, type KubeEventSourceContext } from '@kindex/informer';
 * import type { EventSource, KubernetesObject, Reconciler } from '@kindex/core';
 * import { UpdateControl } from '@kindex/core';
 *
 * // Inside an Operator, prepareEventSources gets this context: build() applies the controller's eventFilters too.
 * const reconciler: Reconciler<KubernetesObject, KubeClient> = {
 *   prepareEventSources(context): EventSource<unknown, KubernetesObject>[] {
 *     const filters = (context as KubeEventSourceContext<KubernetesObject>).eventFilters;
 *     console.log(`${filters.length} controller-wide filters`);
 *     return [InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap).build(context)];
 *   },
 *   reconcile: () => UpdateControl.noUpdate(),
 * };
 * ```
 */
export interface KubeEventSourceContext<P extends KubernetesObject> extends EventSourceContext<P, KubeClient> {
  /** Filters applied to the events of every source of the controller (ANDed with each source's). */
  readonly eventFilters: readonly Predicate<KubernetesObject>[];
  /** The controller's shard selector, if it has one. */
  readonly shardSelector?: ShardSelector | undefined;
}
