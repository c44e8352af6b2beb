/**
 * The client stage: every request kindex sends to the API server, through the official client's
 * KubeConfig (authentication, TLS, exec plugins).
 *
 * - {@link KubeClient} (this file): reads (`get`, paginated `list`) and writes of objects, as the
 *   server's plain JSON, the same shape the caches hold, so an object a reconciler wrote can stand
 *   in the cache until the watch delivers it (read-after-write). For typed or generic access
 *   beyond this, `objectApi()` returns client-node's `KubernetesObjectApi`.
 * - `kube-request.ts`: the one HTTP layer under it, the reflector's lists and watches, discovery
 *   (`resolveResourceType`) and startup probes; a non-2xx answer is a `KubeApiError`
 *   (`kube-api-error.ts`).
 * - `codec.ts`: the codec seam, one decoder per media type for objects, lists and watch frames,
 *   which also names the Accept header; `json-codec.ts` reads whole objects, `metadata-codec.ts`
 *   the metadata of a metadata-only kind's (`as=PartialObjectMetadata`), `cbor-codec.ts` CBOR;
 *   `read-codec.ts` picks one for a kind and a `wire` option, for the reflector and this client.
 *
 * @module
 */
import { KubernetesObjectApi, type KubeConfig } from '@kubernetes/client-node';
import { ResourceID, type KubernetesObject, type SecondaryType } from '@kindex/core';
import { positiveMilliseconds, rejectUnknownOptions } from '@kindex/core/internal';
import { apiVersionOf, collectionPath, objectPath, type ResourceType } from '../kind/resource-type.js';
import { KubeClientRegistrySlot, type KubeClientRegistry, type KubeClientRegistryClass } from './kube-client-registry.js';
import { decodeBody, sendRequest } from './kube-request.js';
import { APPLY_OPTIONS, KUBE_CLIENT_OPTIONS, LIST_OPTIONS } from './kube-client-options.js';
import type { ApplyOptions, KubeClientOptions, ListOptions } from './kube-client-options.js';
import type { KubeCodec } from './codec.js';
import { readCodec } from './read-codec.js';
import { KubeApiError } from './kube-api-error.js';
import { withTypeMeta, type ObjectInput } from './object-input.js';
import { InvalidApplyConfigurationError } from './invalid-apply-configuration-error.js';
import { composeFence } from './compose-fence.js';
import { assertUsableKubeConfig } from '../kubeconfig/assert-usable-kube-config.js';

/**
 * Patch content types the API server accepts for every kind.
 *
 * @example
 * ```ts
 * import { Kinds, type KubeClient, type PatchType } from '@kindex/informer';
 * import { ResourceID } from '@kindex/core';
 * declare const client: KubeClient;
 *
 * // A JSON patch removes one annotation without touching the others.
 * const patchType: PatchType = 'json';
 * await client.patch(Kinds.ConfigMap, ResourceID.of('web-config', 'shop'), [{ op: 'remove', path: '/metadata/annotations/example.com~1paused' }], { patchType });
 * ```
 */
export type PatchType = 'merge' | 'json';

const CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
};

/** A kind that can check its objects: a custom resource from `customResource()`. */
interface SelfValidatingKind {
  assertValid(object: unknown, options: { partial: boolean }): void;
}

// Declared with the other options objects of the client; Operator options list these keys.
export type { ApplyOptions, KubeClientOptions, ListOptions } from './kube-client-options.js';

/** See {@link KubeClientOptions.requestInactivityMs}. */
const DEFAULT_REQUEST_INACTIVITY_MS = 70_000;

/**
 * The Kubernetes client kindex hands to reconcilers and event sources: the KubeConfig, the
 * registry of shared informers, and raw-JSON object operations.
 *
 * The object type follows the kind: `get`, `list`, `create`, `update`, `patch` and `apply` of a
 * `ResourceKind<T>` (`Kinds.ConfigMap`, `resourceKind<T>(...)`) read and return `T`. Of a plain
 * `ResourceType` they return `KubernetesObject`, the type argument given, or the written object's
 * type. (Their `type` is `ResourceType & Partial<SecondaryType<R>>`: the second part adds only
 * optional members, the kind's name and its phantom object type, so every ResourceType fits and
 * `R` is inferred from a ResourceKind without a type argument.) `create`, `update` and `apply`
 * take an {@link ObjectInput}: apiVersion and kind may be left out, the kind fills them in.
 *
 * @example
 * ```ts
 * import { KubeClient, Kinds } from '@kindex/informer';
 * import { ResourceID } from '@kindex/core';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const client = new KubeClient(kubeConfig, { fieldManager: 'web-operator' });
 * const id = ResourceID.of('web-config', 'shop');
 * const existing = await client.get(Kinds.ConfigMap, id);
 * if (existing === undefined) {
 *   await client.create(Kinds.ConfigMap, { metadata: { name: id.name, namespace: id.namespace } });
 * }
 * await client.patch(Kinds.ConfigMap, id, { data: { mode: 'active' } });
 * ```
 */
export class KubeClient {
  readonly kubeConfig: KubeConfig;
  readonly fieldManager: string;
  /** Shared with the clients `withFence` makes from this one. */
  #registry: KubeClientRegistrySlot;
  readonly #fence: (() => void) | undefined;
  readonly #validate: boolean;
  readonly #requestInactivityMs: number;
  #objectApi: KubernetesObjectApi | undefined;

  constructor(kubeConfig: KubeConfig, options: KubeClientOptions = {}) {
    KUBE_CLIENT_OPTIONS.check(options);
    // A KubeConfig that cannot reach a cluster fails here, not after the cache sync timeout.
    assertUsableKubeConfig(kubeConfig);
    this.kubeConfig = kubeConfig;
    this.#registry = new KubeClientRegistrySlot(options.registry);
    this.fieldManager = options.fieldManager ?? 'kindex';
    this.#fence = options.fence;
    this.#validate = options.validate ?? false;
    this.#requestInactivityMs =
      positiveMilliseconds(options.requestInactivityMs, 'KubeClient options: requestInactivityMs') ?? DEFAULT_REQUEST_INACTIVITY_MS;
  }

  /**
   * A rejected promise for a create or update through a metadata-only kind: the body holds
   * metadata only, so the server would store the object without its spec or data. Patches and
   * applies of metadata fields stay allowed, as controller-runtime patches PartialObjectMetadata.
   */
  #metadataOnlyWrite(verb: 'create' | 'update', type: ResourceType, object: KubernetesObject): Promise<never> | undefined {
    if (type.metadataOnly !== true) return undefined;
    const name = object.metadata?.name ?? '<no name>';
    const where = `${type.kind} ${object.metadata?.namespace ? `${object.metadata.namespace}/` : ''}${name}`;
    return Promise.reject(
      new TypeError(
        `KubeClient.${verb}: ${where}: the kind is metadata-only, so the body would replace the whole object with its metadata; ` +
          `pass the whole kind (metadataOnly(kind).objectKind) with the whole object, or patch the metadata fields`,
      ),
    );
  }

  /** With the `validate` option, the kind's own check of `object` (a rejected promise when it fails). */
  #validated(type: ResourceType, object: unknown, partial: boolean): Promise<never> | undefined {
    const check = (type as Partial<SelfValidatingKind>).assertValid;
    if (!this.#validate || typeof check !== 'function') return undefined;
    try {
      check.call(type, object, { partial });
      return undefined;
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** The registry of shared informers of its caches and sources: given, or made by the first; undefined before. */
  get registry(): KubeClientRegistry | undefined {
    return this.#registry.current;
  }

  /**
   * The client's registry as a `type` (kept from the first call on, shared with {@link withFence}'s
   * clients): how cache/'s `InformerRegistry.of(client)` keeps its registry here unknown to client/.
   * @throws {TypeError} when the client holds a registry of another class.
   */
  registryOf<T extends KubeClientRegistry>(type: KubeClientRegistryClass<T>): T {
    return this.#registry.of(type);
  }

  /** Throws what the `fence` option throws (e.g. `NotLeaderError`) when this client may not write now. */
  checkFence(): void {
    this.#fence?.();
  }

  /**
   * A client on the same KubeConfig, registry, field manager, validation and request timeout
   * whose writes also pass `fence`, checked after this client's own, synchronously as each
   * request is about to be sent. Controllers hand one to each reconcile of a sharded primary,
   * fenced by that primary's shard: a process paused past its renew deadline is refused on its
   * first write after resuming, before any timer could tell it the shard is gone.
   *
   * @example
   * ```ts
   * import { KubeClient, Kinds } from '@kindex/informer';
   * declare const client: KubeClient;
   * declare const deadline: number;
   *
   * // Writes through `fenced` stop once the deadline has passed.
   * const fenced = client.withFence(() => {
   *   if (performance.now() >= deadline) throw new Error('deadline passed: this replica may not write now');
   * });
   * await fenced.apply(Kinds.ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config', namespace: 'shop' } });
   * ```
   */
  withFence(fence: () => void): KubeClient {
    const fenced = new KubeClient(this.kubeConfig, {
      fieldManager: this.fieldManager,
      validate: this.#validate,
      requestInactivityMs: this.#requestInactivityMs,
      fence: composeFence(this.#fence, fence),
    });
    fenced.#registry = this.#registry; // a registry made later through either is the other's too
    return fenced;
  }

  /** client-node's generic object API on the same KubeConfig. */
  objectApi(): KubernetesObjectApi {
    this.#objectApi ??= KubernetesObjectApi.makeApiClient(this.kubeConfig);
    return this.#objectApi;
  }

  /** Reads one object from the server (not the cache); undefined when it does not exist. */
  async get<R extends KubernetesObject = KubernetesObject>(
    type: ResourceType & Partial<SecondaryType<R>>,
    id: ResourceID,
  ): Promise<R | undefined> {
    try {
      const object = await this.#send<R>('GET', objectPath(type, id), undefined, undefined, readCodec(type));
      // The metadata codec leaves kind out: stamp the resource's, as the cache and list() do.
      return type.metadataOnly === true ? { kind: type.kind, apiVersion: apiVersionOf(type), ...object } : object;
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /**
   * Creates an object; the namespace comes from the object, apiVersion and kind from `type` when
   * left out (see {@link ObjectInput}; a contradicting one rejects with `InvalidResourceError`).
   */
  create<R extends KubernetesObject>(type: ResourceType & Partial<SecondaryType<R>>, object: ObjectInput<R>): Promise<R> {
    let full: R;
    try {
      full = withTypeMeta<R>('create', type, object);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const path = collectionPath(type, full.metadata?.namespace);
    return (
      this.#metadataOnlyWrite('create', type, full) ??
      this.#validated(type, full, false) ??
      this.#send<R>('POST', path, full, 'application/json')
    );
  }

  /**
   * Replaces an object (optimistic concurrency on its resourceVersion); apiVersion and kind as
   * in `create`.
   */
  update<R extends KubernetesObject>(
    type: ResourceType & Partial<SecondaryType<R>>,
    object: ObjectInput<R>,
    subresource?: 'status',
  ): Promise<R> {
    let full: R;
    try {
      full = withTypeMeta<R>('update', type, object);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const id = ResourceID.fromResource(full);
    return (
      this.#metadataOnlyWrite('update', type, full) ??
      this.#validated(type, full, false) ??
      this.#send<R>('PUT', objectPath(type, id, subresource), full, 'application/json')
    );
  }

  /** Patches an object, or its status subresource. */
  patch<R extends KubernetesObject = KubernetesObject>(
    type: ResourceType & Partial<SecondaryType<R>>,
    id: ResourceID,
    patch: unknown,
    options: { subresource?: 'status'; patchType?: PatchType } = {},
  ): Promise<R> {
    const contentType = CONTENT_TYPES[options.patchType ?? 'merge'];
    return this.#send<R>('PATCH', objectPath(type, id, options.subresource), patch, contentType);
  }

  /**
   * Lists objects from the server (not the cache), every page of them: in one namespace, or
   * across all (namespace left out, or the kind is cluster-scoped). Selectors are the server's
   * `labelSelector` and `fieldSelector` strings.
   */
  async list<R extends KubernetesObject = KubernetesObject>(
    type: ResourceType & Partial<SecondaryType<R>>,
    options: ListOptions = {},
  ): Promise<R[]> {
    rejectUnknownOptions(LIST_OPTIONS.name, options, LIST_OPTIONS.keys);
    const items: R[] = [];
    let continueToken: string | undefined;
    do {
      // Pages of 500, client-go's default for its pager: a large collection never comes as one body.
      const query = new URLSearchParams({ limit: '500' });
      if (options.labelSelector) query.set('labelSelector', options.labelSelector);
      if (options.fieldSelector) query.set('fieldSelector', options.fieldSelector);
      if (continueToken) query.set('continue', continueToken);
      const { open, body } = await sendRequest(this.kubeConfig, {
        path: `${collectionPath(type, options.namespace)}?${query.toString()}`,
        shape: 'list',
        codec: readCodec(type),
      });
      const page = decodeBody(open, body, 'list') as { items?: R[]; metadata?: { continue?: string } };
      // A list's items carry neither apiVersion nor kind on the wire; add them, as a get returns them.
      for (const item of page.items ?? []) items.push({ apiVersion: apiVersionOf(type), kind: type.kind, ...item });
      continueToken = page.metadata?.continue || undefined;
    } while (continueToken !== undefined);
    return items;
  }

  // --- Server-side apply (kept in one block, apart from the request plumbing) ---

  /**
   * Server-side apply (`application/apply-patch+yaml`): the server merges `object` into the live
   * object by field ownership, or creates it. Fields this manager applied before and leaves out
   * now are removed unless another manager owns them. The object carries only the fields its
   * manager has an opinion on; resourceVersion, uid and managedFields are left out of the request.
   * apiVersion and kind come from `type` when left out, as in `create`.
   *
   * @throws {InvalidApplyConfigurationError} when metadata.name (or the namespace of a namespaced
   *   kind) is missing, or the object's apiVersion or kind is not `type`'s.
   * @throws {KubeApiError} 409 Conflict naming the managers of conflicting fields (without `force`).
   */
  apply<R extends KubernetesObject>(
    type: ResourceType & Partial<SecondaryType<R>>,
    input: ObjectInput<R>,
    options: ApplyOptions = {},
  ): Promise<R> {
    rejectUnknownOptions(APPLY_OPTIONS.name, options, APPLY_OPTIONS.keys);
    const object = withTypeMeta<R>('apply', type, input);
    const name = object.metadata?.name;
    const where = `${type.kind} ${object.metadata?.namespace ? `${object.metadata.namespace}/` : ''}${name ?? '<no name>'}`;
    if (!name)
      throw new InvalidApplyConfigurationError(
        `KubeClient.apply: ${type.kind}: metadata.name is required (server-side apply addresses one object by name)`,
      );
    if (type.namespaced && !object.metadata?.namespace) {
      throw new InvalidApplyConfigurationError(
        `KubeClient.apply: ${where}: metadata.namespace is required for the namespaced kind ${type.kind}`,
      );
    }
    const {
      resourceVersion: _rv,
      uid: _uid,
      managedFields: _mf,
      creationTimestamp: _ct,
      generation: _g,
      ...metadata
    } = object.metadata ?? {};
    const body = { ...object, metadata };
    const query = new URLSearchParams({ fieldManager: options.fieldManager ?? this.fieldManager });
    if (options.force) query.set('force', 'true');
    if (options.dryRun) query.set('dryRun', 'All');
    const path = `${objectPath(type, ResourceID.fromResource(object), options.subresource)}?${query.toString()}`;
    return this.#validated(type, body, true) ?? this.#send<R>('PATCH', path, body, 'application/apply-patch+yaml');
  }

  /** Deletes an object; resolves false when it was already gone. */
  async delete(
    type: ResourceType,
    id: ResourceID,
    options: { propagationPolicy?: 'Background' | 'Foreground' | 'Orphan' } = {},
  ): Promise<boolean> {
    try {
      const body = options.propagationPolicy
        ? { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: options.propagationPolicy }
        : undefined;
      await this.#send('DELETE', objectPath(type, id), body, body ? 'application/json' : undefined);
      return true;
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return false;
      throw error;
    }
  }

  async #send<T>(method: string, path: string, body?: unknown, contentType?: string, codec?: KubeCodec): Promise<T> {
    // Fencing: a replica that lost its lease writes nothing.
    if (method !== 'GET') this.checkFence();
    // apply() names its own field manager in the path.
    const query = method !== 'GET' && method !== 'DELETE' && !path.includes('fieldManager=') ? { fieldManager: this.fieldManager } : {};
    const { open, body: answer } = await sendRequest(this.kubeConfig, {
      method,
      path,
      query,
      shape: 'object',
      inactivityMs: this.#requestInactivityMs,
      ...(codec === undefined ? {} : { codec }),
      ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)), contentType }),
    });
    return (answer.length === 0 ? undefined : decodeBody(open, answer, 'object')) as T;
  }
}
