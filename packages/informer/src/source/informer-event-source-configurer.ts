import {
  and,
  type KubernetesObject,
  type Predicate,
  type PrimaryToSecondaryMapper,
  type SecondaryToPrimaryMapper,
  type EventHandler,
  type ShardSelector,
} from '@kindex/core';
import { stealthTransition } from '@kindex/core/internal';
import type { ResourceKind } from '../kind/resource-kind.js';
import { fromOwnerReferences } from '../mapper/owner-reference-mapper.js';
import type { ObjectTransform } from '../kind/object-transform.js';
import { checkFieldSelector, checkLabelSelector } from '../config/option-validation.js';
import { REFLECTOR_TUNING_OPTIONS } from '../reflector/reflector-options.js';
import { checkRemoteCluster, claimRemoteCluster, type RemoteCluster } from './remote-cluster.js';
import type { InformerEventSourceConfiguration } from './informer-event-source-configuration.js';

/**
 * The configuration half of {@link InformerEventSourceBuilder}: every `with…` step, each
 * returning the builder itself. Kept apart from `build()` so the builder's steps and the event
 * source it builds live in files of their own size.
 */
export abstract class InformerEventSourceConfigurer<R extends KubernetesObject, P extends KubernetesObject> {
  #config: InformerEventSourceConfiguration<R, P>;
  /** The stealth filters so far, ANDed; the configuration holds their transform. */
  #stealthFilter: Predicate<R> | undefined;
  /** Whether withSecondaryToPrimaryMapper was called (a remote source must not map by owner references). */
  #mapped = false;

  /** @internal use {@link InformerEventSource.from} */
  constructor(kind: ResourceKind<R>, primaryKind: ResourceKind<P> | undefined) {
    this.#config = {
      kind,
      primaryKind,
      name: kind.name,
      labelSelector: undefined,
      fieldSelector: undefined,
      namespaces: 'inherit',
      shardSelector: 'inherit',
      // Without a primary kind no owner reference can name a primary: nothing to reconcile.
      toPrimaryIds:
        primaryKind === undefined
          ? () => []
          : fromOwnerReferences<R>({
              group: primaryKind.group,
              kind: primaryKind.kind,
              clusterScopedOwner: !primaryKind.namespaced,
            }),
      toSecondaryIds: undefined,
      filter: undefined,
      stealth: undefined,
      handler: undefined,
      transform: undefined,
      reflector: undefined,
      cluster: undefined,
    };
  }

  #with(change: Partial<InformerEventSourceConfiguration<R, P>>): this {
    this.#config = { ...this.#config, ...change };
    return this;
  }

  /** Unique name within the controller. Defaults to the kind's name. */
  withName(name: string): this {
    return this.#with({ name });
  }
  /** Server-side label selector of the cache. */
  withLabelSelector(labelSelector: string): this {
    checkLabelSelector(`event source ${this.#config.name}`, labelSelector);
    return this.#with({ labelSelector });
  }
  /** Server-side field selector of the cache. */
  withFieldSelector(fieldSelector: string): this {
    checkFieldSelector(`event source ${this.#config.name}`, fieldSelector);
    return this.#with({ fieldSelector });
  }
  /** Watch these namespaces (changeable later with `changeNamespaces`). */
  withNamespaces(namespaces: readonly string[]): this {
    return this.#with({ namespaces: [...namespaces] });
  }
  /**
   * Cache only these shard ranges (`'none'`: every object; `'inherit'`, the default: the
   * controller's, when it shards by namespace).
   */
  withShardSelector(shardSelector: ShardSelector | 'inherit' | 'none'): this {
    return this.#with({ shardSelector });
  }
  /** Watch every namespace. */
  withAllNamespaces(): this {
    return this.#with({ namespaces: 'all' });
  }
  /**
   * Watch the namespaces whose Namespace object matches `labelSelector`, following labels as
   * they change at run time (an added namespace's objects arrive as creates; a removed one's
   * leave the cache without triggers). Needs list and watch on namespaces.
   */
  withNamespaceSelector(labelSelector: string): this {
    checkLabelSelector(`event source ${this.#config.name} namespaceSelector`, labelSelector);
    return this.#with({ namespaces: { selector: labelSelector } });
  }
  /** Watch the controller's namespaces and follow its changes. The default. */
  withNamespacesInheritedFromController(): this {
    return this.#with({ namespaces: 'inherit' });
  }
  /** Which primaries a secondary concerns. Defaults to owner references of the primary kind. */
  withSecondaryToPrimaryMapper(toPrimaryIds: SecondaryToPrimaryMapper<R>): this {
    this.#mapped = true;
    return this.#with({ toPrimaryIds });
  }
  /** Which secondaries a primary reads; replaces the reverse index. */
  withPrimaryToSecondaryMapper(toSecondaryIds: PrimaryToSecondaryMapper<P>): this {
    return this.#with({ toSecondaryIds });
  }
  /** A predicate (or kopf filter) on the secondary's events; several calls are ANDed. */
  withFilter(filter: Predicate<R>): this {
    const prev = this.#config.filter;
    return this.#with({ filter: prev === undefined ? filter : and(prev, filter) });
  }
  /**
   * kopf's stealth mode: objects that do not pass `filter` (judged on their state, as a
   * `generic` event) are invisible to this source's filters and handler. An object that starts
   * passing arrives as a `create`, one that stops passing as a `delete` (so a create-only
   * filter such as {@link InformerEventSourceBuilder.withOnAddFilter} sees objects gaining the
   * label later, as kopf's `on.create` does). The cache still holds every object the selectors
   * admit: use `withLabelSelector` to keep objects out of memory, this for what a selector
   * cannot express. Several calls are ANDed. Defaults to off.
   *
   * @example
   * ```ts
   * import { kopfFilter, PRESENT } from '@kindex/core';
   * import { InformerEventSource, Kinds, resourceKind } from '@kindex/informer';
   * const WebPageKind = resourceKind({ group: 'sample.dev', version: 'v1', kind: 'WebPage', plural: 'webpages', namespaced: true });
   *
   * // ConfigMaps that gain the label later arrive as creates, those losing it as deletes.
   * const managed = InformerEventSource.from(Kinds.ConfigMap, WebPageKind)
   *   .withStealthFilter(kopfFilter({ labels: { 'example.com/managed': PRESENT } }))
   *   .withOnAddFilter(() => true);
   * ```
   * @see stealthTransition
   */
  withStealthFilter(filter: Predicate<R>): this {
    this.#stealthFilter = this.#stealthFilter === undefined ? filter : and(this.#stealthFilter, filter);
    return this.#with({ stealth: stealthTransition(this.#stealthFilter) });
  }
  /** Only create events passing `accept` go on. */
  withOnAddFilter(accept: (object: R) => boolean): this {
    return this.withFilter({ name: 'onAdd', create: (e) => accept(e.object) });
  }
  /** Only update events passing `accept` go on. */
  withOnUpdateFilter(accept: (object: R, oldObject: R) => boolean): this {
    return this.withFilter({ name: 'onUpdate', update: (e) => accept(e.object, e.oldObject) });
  }
  /** Only delete events passing `accept` go on. */
  withOnDeleteFilter(accept: (object: R, deleteStateUnknown: boolean) => boolean): this {
    return this.withFilter({ name: 'onDelete', delete: (e) => accept(e.object, e.deleteStateUnknown) });
  }
  /** Only generic events passing `accept` go on. */
  withGenericFilter(accept: (object: R) => boolean): this {
    return this.withFilter({ name: 'generic', generic: (e) => accept(e.object) });
  }
  /** Decides which primaries an event reconciles (see {@link InformerEventSourceConfiguration.handler}). */
  withEventHandler(handler: EventHandler<R>): this {
    return this.#with({ handler });
  }
  /** Reshapes objects before caching; `null` keeps them as sent. Defaults to dropping managedFields. */
  withTransform(transform: ObjectTransform<R> | null): this {
    return this.#with({ transform });
  }
  /** Connection tuning of the reflectors (page size, timeouts, backoff). */
  withReflectorOptions(reflector: InformerEventSourceConfiguration<R, P>['reflector']): this {
    REFLECTOR_TUNING_OPTIONS.check(reflector, `event source ${this.#config.name} reflector options`);
    return this.#with({ reflector });
  }

  /**
   * Watches another cluster than the operator's (JOSDK: an InformerEventSource with its own
   * client): its objects map to primaries through {@link withSecondaryToPrimaryMapper} (owner
   * references do not cross clusters), and its name appears in health, metrics, logs and startup
   * errors. See {@link RemoteCluster} for what happens when the cluster is down. Defaults to the
   * operator's cluster.
   */
  withRemoteCluster(cluster: RemoteCluster): this {
    return this.#with({ cluster: checkRemoteCluster(`event source ${this.#config.name}`, cluster) });
  }

  /** The configuration as built so far. */
  configuration(): InformerEventSourceConfiguration<R, P> {
    return this.#config;
  }

  /** The configuration to build from; throws when a remote source would map by owner references. */
  protected buildable(): InformerEventSourceConfiguration<R, P> {
    const { cluster, name, primaryKind, handler } = this.#config;
    if (cluster !== undefined && !this.#mapped && handler === undefined && primaryKind !== undefined) {
      throw new TypeError(
        `event source ${name}: objects of cluster ${cluster.name} cannot name their primaries by owner references (they do not cross clusters); add withSecondaryToPrimaryMapper(fromAnnotations()) or fromLabels()`,
      );
    }
    return this.#config;
  }

  /**
   * `source` once a remote source's cluster name is claimed among the sources built on `client`
   * (one name, one cluster: see claimRemoteCluster); a local source as it is.
   * @internal
   */
  protected claimed<S extends Parameters<typeof claimRemoteCluster>[2]>(client: object, source: S): S {
    return claimRemoteCluster(client, this.#config.cluster, source);
  }
}
