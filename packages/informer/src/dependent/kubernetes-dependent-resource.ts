/**
 * The dependent-resource stage (JOSDK's KubernetesDependentResource): a reconciler declares the
 * Kubernetes objects a primary should produce — a ConfigMap, a Service, a Deployment — as
 * `desired(primary, context)`, and the framework keeps them so. Use it when the secondaries of a
 * primary are fully derived from it; use a plain InformerEventSource when the reconciler only
 * reads secondaries others own.
 *
 * What one dependent does:
 * - its informer event source (`eventSource(context)`, returned from `prepareEventSources`) maps
 *   each object back to its owner, and is shared with any other source of the same kind and
 *   selectors through the informer registry;
 * - `reconcile` server-side applies the desired object with `force` under the dependent's field
 *   manager, with an owner reference to the primary (so the garbage collector deletes it with
 *   the primary), unless the live object already holds what would be applied
 *   ({@link matchesAppliedFields}: server defaults and other managers' fields are no diff), so a
 *   no-change reconcile writes nothing;
 * - `delete` removes it (for a reconcile precondition that turned false, or for objects an owner
 *   reference cannot cover: cluster-scoped ones of a namespaced primary);
 * - reads come from the cache, with the object its own last write returned standing in until the
 *   informer has caught up (read-after-write). Of the primary's secondaries of the kind, the
 *   dependent's own is the one whose name and namespace match `desired()` (JOSDK's
 *   `selectTargetSecondaryResource`), so several dependents of one kind can share a primary; a
 *   `discriminator` picks it instead where the name cannot tell.
 *
 * A dependent may live in another cluster (the `cluster` option, a {@link RemoteCluster}; JOSDK's
 * KubernetesDependentResource with the client of another cluster): it is applied, deleted and
 * watched there, names its primary in annotations (owner references do not cross clusters), and,
 * with no garbage collector across clusters either, is deleted by `Workflow.cleanup` while the
 * controller's finalizer holds the primary.
 *
 * Workflows (ordering, readiness, conditions) are in workflow.ts.
 *
 * @module
 */
import { ResourceID, type Context, type EventSourceContext, type KubernetesObject } from '@kindex/core';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import { KubeClient } from '../client/kube-client.js';
import { matchesAppliedFields } from '../client/ssa-matcher.js';
import {
  DEFAULT_PRIMARY_NAME_KEY,
  DEFAULT_PRIMARY_NAMESPACE_KEY,
  DEFAULT_PRIMARY_TYPE_KEY,
  fromAnnotations,
} from '../mapper/annotation-mapper.js';
import { TemporaryResourceCache } from './temporary-resource-cache.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import { apiVersionOf } from '../kind/resource-type.js';
import { InformerEventSource } from '../source/informer-event-source.js';
import { checkRemoteCluster, type RemoteCluster } from '../source/remote-cluster.js';

/**
 * Thrown when `desired()` returns an object the dependent cannot apply; names the dependent and the fix.
 *
 * @example
 * ```ts
 * import { InvalidDesiredResourceError, type KubeClient, type KubernetesDependentResource } from '@kindex/informer';
 * import type { Context, KubernetesObject } from '@kindex/core';
 * declare const dependent: KubernetesDependentResource;
 * declare const primary: KubernetesObject;
 * declare const context: Context<KubernetesObject, KubeClient>;
 *
 * try {
 *   await dependent.reconcile(primary, context);
 * } catch (error) {
 *   // `desired` returned an object without a name, of the wrong kind, or in another namespace.
 *   if (error instanceof InvalidDesiredResourceError) console.error(error.message);
 * }
 * ```
 */
export class InvalidDesiredResourceError extends Error {
  override readonly name = 'InvalidDesiredResourceError';
  readonly code = 'KINDEX_INVALID_DESIRED_RESOURCE';
}

/**
 * Thrown when the dependent is used before its event source was built in `prepareEventSources`.
 *
 * @example
 * ```ts
 * import { DependentNotPreparedError, type KubeClient, type KubernetesDependentResource } from '@kindex/informer';
 * import type { Context, KubernetesObject } from '@kindex/core';
 * declare const dependent: KubernetesDependentResource;
 * declare const primary: KubernetesObject;
 * declare const context: Context<KubernetesObject, KubeClient>;
 *
 * try {
 *   dependent.getSecondaryResource(primary, context);
 * } catch (error) {
 *   // Return dependent.eventSource(context) from prepareEventSources first.
 *   if (error instanceof DependentNotPreparedError) console.error(error.message);
 * }
 * ```
 */
export class DependentNotPreparedError extends Error {
  override readonly name = 'DependentNotPreparedError';
  readonly code = 'KINDEX_DEPENDENT_NOT_PREPARED';
}

/**
 * Thrown when a dependent's `discriminator` accepts more than one of the primary's secondaries;
 * names the dependent, the primary and the candidates.
 *
 * @example
 * ```ts
 * import { AmbiguousDependentResourceError, type KubeClient, type KubernetesDependentResource } from '@kindex/informer';
 * import type { Context, KubernetesObject } from '@kindex/core';
 * declare const dependent: KubernetesDependentResource;
 * declare const primary: KubernetesObject;
 * declare const context: Context<KubernetesObject, KubeClient>;
 *
 * try {
 *   dependent.getSecondaryResource(primary, context);
 * } catch (error) {
 *   if (error instanceof AmbiguousDependentResourceError) console.error(error.dependent, error.candidates);
 * }
 * ```
 */
export class AmbiguousDependentResourceError extends Error {
  override readonly name = 'AmbiguousDependentResourceError';
  readonly code = 'KINDEX_AMBIGUOUS_DEPENDENT_RESOURCE';
  /** `namespace/name` of the primary. */
  readonly objectKey: string;
  /** The dependent's name. */
  readonly dependent: string;
  /** Keys (`namespace/name`) of every secondary the discriminator accepted. */
  readonly candidates: readonly string[];

  constructor(objectKey: string, dependent: string, kind: string, candidates: readonly string[]) {
    super(
      `dependent "${dependent}" of ${objectKey}: its discriminator accepts ${candidates.length} ${kind}s (${candidates.join(', ')}) ` +
        `where at most one was expected; make the discriminator accept only this dependent's object, for example by a label desired() sets`,
    );
    this.objectKey = objectKey;
    this.dependent = dependent;
    this.candidates = Object.freeze([...candidates]);
  }
}

/**
 * Picks a dependent's object among the primary's secondaries of its kind (JOSDK's resource
 * discriminator): true for the one this dependent manages. It must accept what `desired()`
 * returns, and at most one live object.
 *
 * @example
 * ```ts
 * import type { ResourceDiscriminator } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 *
 * // The ConfigMap labelled as the primary's "cache" component, whatever its name.
 * const cache: ResourceDiscriminator<KubernetesObject, KubernetesObject> = (candidate) =>
 *   candidate.metadata?.labels?.['app.kubernetes.io/component'] === 'cache';
 * ```
 */
export type ResourceDiscriminator<R extends KubernetesObject, P extends KubernetesObject> = (
  candidate: R,
  primary: P,
  context: Context<P, KubeClient>,
) => boolean;

/**
 * How a dependent is declared.
 *
 * @example
 * ```ts
 * import { KubernetesDependentResource, Kinds, type KubernetesDependentResourceOptions } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 *
 * const options: KubernetesDependentResourceOptions<KubernetesObject, KubernetesObject> = {
 *   kind: Kinds.Secret,
 *   primaryKind: Kinds.ConfigMap,
 *   name: 'credentials',
 *   desired: (primary) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `${primary.metadata!.name!}-credentials`, namespace: primary.metadata!.namespace! } }),
 * };
 * const credentials = new KubernetesDependentResource(options);
 * ```
 */
export interface KubernetesDependentResourceOptions<R extends KubernetesObject, P extends KubernetesObject> {
  /** The kind of the dependent objects. */
  readonly kind: ResourceKind<R>;
  /** The primary kind (for owner references and the secondary-to-primary mapping). */
  readonly primaryKind: ResourceKind<P>;
  /** Unique within the workflow; names the event source too. Defaults to the kind's name. */
  readonly name?: string;
  /**
   * The object the primary should have. Its name, namespace (defaults to the primary's),
   * labels, annotations and content are applied; the owner reference is added.
   */
  desired(primary: P, context: Context<P, KubeClient>): R;
  /** The field manager of the applies. Defaults to the client's with `/` and the dependent's name appended. */
  readonly fieldManager?: string;
  /**
   * Picks this dependent's object among the primary's secondaries of the kind, for when its name
   * and namespace cannot (JOSDK's resource discriminator). Defaults to the secondary whose name
   * and namespace match `desired()`.
   */
  readonly discriminator?: ResourceDiscriminator<R, P>;
  /**
   * The cluster the objects live in, when not the operator's own: they are applied, deleted and
   * watched there with its kubeConfig, carry the primary's name, namespace and type in
   * annotations instead of an owner reference, and are deleted when the primary is through the
   * controller's finalizer (`Workflow.cleanup`), as no garbage collector crosses clusters. The
   * objects may go to any namespace of that cluster the dependent watches (see `namespaces`).
   * Defaults to the operator's cluster.
   */
  readonly cluster?: RemoteCluster;
  /**
   * The namespaces of the remote `cluster` the dependent watches, and so where `desired()` may
   * put its objects; only with `cluster` (a local dependent lives in its primary's namespace).
   * Defaults to the controller's namespaces.
   */
  readonly namespaces?: readonly string[];
}

/**
 * {@link KubernetesDependentResourceOptions}' keys and value checks: unknown keys are rejected, not
 * ignored (the kinds and the cluster have checks of their own).
 */
export const KUBERNETES_DEPENDENT_RESOURCE_OPTIONS = defineOptions<KubernetesDependentResourceOptions<KubernetesObject, KubernetesObject>>(
  'KubernetesDependentResource options',
  {
    kind: Type.Unknown(),
    primaryKind: Type.Unknown(),
    name: Type.Optional(Type.String({ minLength: 1, description: 'a name unique within the workflow' })),
    desired: Type.Function([Type.Unknown(), Type.Unknown()], Type.Unknown(), {
      description: 'a function of (primary, context) returning the object',
    }),
    fieldManager: Type.Optional(Type.String({ minLength: 1, description: 'a field manager name' })),
    discriminator: Type.Optional(
      Type.Function([Type.Unknown(), Type.Unknown(), Type.Unknown()], Type.Boolean(), {
        description: 'a function of (candidate, primary, context) returning a boolean',
      }),
    ),
    cluster: Type.Optional(Type.Unknown()),
    namespaces: Type.Optional(Type.Array(Type.String(), { description: 'an array of namespace names' })),
  },
);

/**
 * What `reconcile` did.
 *
 * @example
 * ```ts
 * import type { DependentAction, KubeClient, KubernetesDependentResource } from '@kindex/informer';
 * import type { Context, KubernetesObject } from '@kindex/core';
 * declare const dependent: KubernetesDependentResource;
 * declare const primary: KubernetesObject;
 * declare const context: Context<KubernetesObject, KubeClient>;
 *
 * const { action }: { action: DependentAction } = await dependent.reconcile(primary, context);
 * if (action !== 'unchanged') context.getLogger().info({ action }, 'dependent written');
 * ```
 */
export type DependentAction = 'created' | 'updated' | 'unchanged';

/**
 * A dependent resource of kind `R` for primaries `P`.
 *
 * @example
 * ```ts
 * import { KubernetesDependentResource, Kinds, resourceKind } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * type WebApp = KubernetesObject & { spec: { greeting: string } };
 * const WebApps = resourceKind<WebApp>({ group: 'example.com', version: 'v1', plural: 'webapps', kind: 'WebApp', namespaced: true });
 *
 * // The ConfigMap each WebApp owns, applied with server-side apply when it differs.
 * const configMap = new KubernetesDependentResource({
 *   kind: Kinds.ConfigMap,
 *   primaryKind: WebApps,
 *   desired: (webApp) => ({
 *     apiVersion: 'v1',
 *     kind: 'ConfigMap',
 *     metadata: { name: `${webApp.metadata!.name!}-config`, namespace: webApp.metadata!.namespace! },
 *     data: { greeting: webApp.spec.greeting },
 *   }),
 * });
 * ```
 */
export class KubernetesDependentResource<R extends KubernetesObject = KubernetesObject, P extends KubernetesObject = KubernetesObject> {
  readonly name: string;
  readonly kind: ResourceKind<R>;
  /** The cluster the objects live in; undefined for the operator's own. */
  readonly cluster: RemoteCluster | undefined;
  readonly #options: KubernetesDependentResourceOptions<R, P>;
  readonly #written = new TemporaryResourceCache<R>();
  #source: InformerEventSource<R, P> | undefined;
  /** The remote cluster's client for applies and deletes (its watches are the event source's), once prepared. */
  #remoteClient: KubeClient | undefined;
  #fieldManager: string | undefined;

  constructor(options: KubernetesDependentResourceOptions<R, P>) {
    const named = typeof options.name === 'string' ? ` (${options.name})` : '';
    KUBERNETES_DEPENDENT_RESOURCE_OPTIONS.check(options, `${KUBERNETES_DEPENDENT_RESOURCE_OPTIONS.name}${named}`);
    this.#options = options;
    this.kind = options.kind;
    this.name = options.name ?? options.kind.name;
    this.cluster = options.cluster === undefined ? undefined : checkRemoteCluster(`dependent "${this.name}"`, options.cluster);
    if (options.namespaces !== undefined && this.cluster === undefined) {
      throw new TypeError(
        `dependent "${this.name}": namespaces is for a dependent in a remote cluster; a local one lives in its primary's namespace (add cluster, or drop namespaces)`,
      );
    }
  }

  /** The field manager of this dependent's applies (known once the event source is built). */
  get fieldManager(): string {
    if (this.#fieldManager === undefined) throw this.#notPrepared();
    return this.#fieldManager;
  }

  /**
   * Builds the dependent's event source; return it from `prepareEventSources`. It shares its
   * informer with every other cache of the kind (the default transform keeps the `Apply` entries
   * of managedFields the no-diff check reads).
   */
  eventSource(context: EventSourceContext<P, KubeClient>): InformerEventSource<R, P> {
    this.#fieldManager = this.#options.fieldManager ?? `${context.client.fieldManager}/${this.name}`;
    // The default cache transform keeps the Apply entries of managedFields the no-diff check
    // reads, so this informer is the one every other user of the kind shares.
    const builder = InformerEventSource.from(this.#options.kind, this.#options.primaryKind).withName(this.name);
    if (this.cluster !== undefined) builder.withRemoteCluster(this.cluster);
    if (this.#options.namespaces !== undefined) builder.withNamespaces(this.#options.namespaces);
    // No owner reference can point from a cluster-scoped object to a namespaced primary, nor
    // into another cluster: such dependents name their primary in annotations (as JOSDK's do),
    // and events map back by them.
    if (!this.ownedByPrimary) builder.withSecondaryToPrimaryMapper(fromAnnotations<R>({ type: { value: this.#primaryType } }));
    this.#source = builder.build(context);
    this.#remoteClient =
      this.cluster === undefined ? undefined : new KubeClient(this.cluster.kubeConfig, { fieldManager: context.client.fieldManager });
    return this.#source;
  }

  /**
   * The primary's dependent object as last known: the cache, or this dependent's newer write.
   * Other secondaries of the kind (another dependent's, say) are not it: the one whose name and
   * namespace match `desired()` is, or the one the `discriminator` accepts.
   * @throws {AmbiguousDependentResourceError} when the discriminator accepts several.
   */
  getSecondaryResource(primary: P, context: Context<P, KubeClient>): R | undefined {
    const candidates = context.getSecondaryResources(this.kind, { eventSourceName: this.name });
    const key = this.#idOf(primary, context).key;
    const discriminator = this.#options.discriminator;
    let cached: R | undefined;
    if (discriminator === undefined) {
      cached = candidates.find((r) => ResourceID.keyOfResource(r) === key);
    } else {
      const accepted = candidates.filter((r) => discriminator(r, primary, context));
      if (accepted.length > 1)
        throw new AmbiguousDependentResourceError(
          ResourceID.keyOfResource(primary),
          this.name,
          this.kind.kind,
          accepted.map((r) => ResourceID.keyOfResource(r)),
        );
      cached = accepted[0];
    }
    // The write stands in under the desired object's key (what the apply named).
    const writtenKey = cached === undefined ? key : ResourceID.keyOfResource(cached);
    const resolved = this.#written.resolve(writtenKey, cached);
    if (cached !== undefined && resolved === cached) this.#written.onInformerEvent(writtenKey, cached);
    return resolved;
  }

  /** Creates or updates the dependent object by server-side apply, unless it already matches. */
  async reconcile(primary: P, context: Context<P, KubeClient>): Promise<{ action: DependentAction; resource: R }> {
    const desired = this.#desiredWithOwner(primary, context);
    const actual = this.getSecondaryResource(primary, context);
    if (actual !== undefined && matchesAppliedFields(actual, desired, this.fieldManager)) return { action: 'unchanged', resource: actual };
    const written = await this.#write(context, (client) =>
      client.apply<R>(this.kind, desired, { fieldManager: this.fieldManager, force: true }),
    );
    this.#written.put(ResourceID.fromResource(written).key, written);
    return { action: actual === undefined ? 'created' : 'updated', resource: written };
  }

  /** Deletes the dependent object (the one `getSecondaryResource` finds); resolves false when there was none. */
  async delete(primary: P, context: Context<P, KubeClient>): Promise<boolean> {
    const actual = this.getSecondaryResource(primary, context);
    this.#written.evict(this.#idOf(primary, context).key);
    if (actual === undefined) return false;
    const id = ResourceID.fromResource(actual);
    this.#written.evict(id.key);
    return this.#write(context, (client) => client.delete(this.kind, id));
  }

  /**
   * Runs a write on the reconcile's client, or on the remote cluster's under the same fence (a
   * replica that lost its lease or shard writes to no cluster). A remote write's failure names
   * the cluster (`cluster <name>: ...`, the error as `cause`), as the remote event source's do;
   * what the fence throws passes as it is.
   */
  async #write<T>(context: Context<P, KubeClient>, write: (client: KubeClient) => Promise<T>): Promise<T> {
    const client = context.getClient();
    const remote = this.#remoteClient;
    if (remote === undefined || this.cluster === undefined) return write(client);
    let refused: unknown;
    const fenced = remote.withFence(() => {
      try {
        client.checkFence();
      } catch (error) {
        refused = error;
        throw error;
      }
    });
    try {
      return await write(fenced);
    } catch (error) {
      if (error === refused || !(error instanceof Error)) throw error;
      throw new Error(`cluster ${this.cluster.name}: ${error.message}`, { cause: error });
    }
  }

  #idOf(primary: P, context: Context<P, KubeClient>): ResourceID {
    const desired = this.#options.desired(primary, context);
    return ResourceID.of(
      desired.metadata?.name ?? '',
      this.kind.namespaced ? (desired.metadata?.namespace ?? primary.metadata?.namespace) : undefined,
    );
  }

  #desiredWithOwner(primary: P, context: Context<P, KubeClient>): R {
    if (this.#source === undefined) throw this.#notPrepared();
    const desired = this.#options.desired(primary, context);
    const where = `dependent "${this.name}" of ${this.#options.primaryKind.kind} ${ResourceID.fromResource(primary).key}`;
    const name = desired.metadata?.name;
    if (!name)
      throw new InvalidDesiredResourceError(
        `${where}: desired() returned a ${this.kind.kind} without metadata.name; name it, for example after the primary`,
      );
    const apiVersion = apiVersionOf(this.kind);
    if (
      (desired.kind !== undefined && desired.kind !== this.kind.kind) ||
      (desired.apiVersion !== undefined && desired.apiVersion !== apiVersion)
    ) {
      throw new InvalidDesiredResourceError(
        `${where}: desired() returned a ${desired.apiVersion} ${desired.kind}, but the dependent's kind is ${apiVersion} ${this.kind.kind}`,
      );
    }
    const primaryNamespace = primary.metadata?.namespace;
    const namespace = this.kind.namespaced ? (desired.metadata?.namespace ?? primaryNamespace) : undefined;
    if (this.cluster !== undefined) {
      // Anywhere in the remote cluster, but where the event source sees it: else every reconcile
      // would find nothing and apply again.
      const watched = this.#source.cache.namespaces;
      if (namespace !== undefined && watched !== 'all' && !watched.includes(namespace)) {
        throw new InvalidDesiredResourceError(
          `${where}: desired() put ${name} in namespace ${namespace} of cluster ${this.cluster.name}, which the dependent does not watch (${watched.join(', ') || 'none'}); list it in the dependent's namespaces option`,
        );
      }
    } else if (this.kind.namespaced && primaryNamespace !== undefined && namespace !== primaryNamespace) {
      throw new InvalidDesiredResourceError(
        `${where}: desired() put ${name} in namespace ${namespace}; an owner reference only works within the primary's namespace ${primaryNamespace}`,
      );
    }
    const metadata = { ...desired.metadata, name, ...(namespace ? { namespace } : {}) };
    // A namespaced owner cannot own a cluster-scoped object: those are deleted explicitly.
    if (!this.ownedByPrimary) {
      metadata.annotations = {
        ...desired.metadata?.annotations,
        [DEFAULT_PRIMARY_NAME_KEY]: primary.metadata?.name ?? '',
        [DEFAULT_PRIMARY_NAMESPACE_KEY]: primary.metadata?.namespace ?? '',
        [DEFAULT_PRIMARY_TYPE_KEY]: this.#primaryType,
      };
    } else {
      const owner = {
        apiVersion: primary.apiVersion ?? apiVersionOf(this.#options.primaryKind),
        kind: primary.kind ?? this.#options.primaryKind.kind,
        name: primary.metadata?.name ?? '',
        uid: primary.metadata?.uid ?? '',
        controller: true,
        blockOwnerDeletion: true,
      };
      const others = (desired.metadata?.ownerReferences ?? []).filter((r) => r.uid !== owner.uid);
      metadata.ownerReferences = [...others, owner];
    }
    return { ...desired, apiVersion, kind: this.kind.kind, metadata };
  }

  /**
   * Whether an owner reference ties the object to its primary, so garbage collection deletes it
   * with the primary; false for a cluster-scoped dependent of a namespaced primary and for one in
   * a remote cluster, which `Workflow.cleanup` deletes instead.
   */
  get ownedByPrimary(): boolean {
    return this.cluster === undefined && (this.kind.namespaced || !this.#options.primaryKind.namespaced);
  }

  get #primaryType(): string {
    const k = this.#options.primaryKind;
    return k.group ? `${k.plural}.${k.group}` : k.plural;
  }

  #notPrepared(): DependentNotPreparedError {
    return new DependentNotPreparedError(
      `dependent "${this.name}" (${this.kind.kind}) has no event source yet: return dependent.eventSource(context) from the reconciler's prepareEventSources`,
    );
  }
}
