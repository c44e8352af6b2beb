import type { KubeConfig } from '@kubernetes/client-node';
import { type IndexedStore, type KubernetesObject, type ShardSelector } from '@kindex/core';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import { BACKOFF_OPTIONS, type BackoffOptions } from './backoff-options.js';
import type { ObjectTransform } from '../kind/object-transform.js';
import type { ResourceType } from '../kind/resource-type.js';
import type { ReflectorSink } from './reflector-sink.js';

/**
 * How a {@link Reflector} reads the initial state (first sync, and again after 410 Gone):
 *
 * - `'watch-list'`: one watch with `sendInitialEvents=true` (KEP-3157, on by default in
 *   kube-apiserver since 1.34) streams every object as ADDED, then a BOOKMARK annotated
 *   `k8s.io/initial-events-end`; the same stream goes on as the watch. No list body is ever held
 *   whole, so peak memory stays near the cache's own size. A server that refuses it is an error,
 *   retried with backoff.
 * - `'list'`: paginated lists (`limit`/`continue`), then a watch from the list's resourceVersion.
 * - `'auto'`: watch-list, falling back to paged lists for the rest of this reflector's life when
 *   the server answers the request with a 4xx that is not about access, the resource or the
 *   resourceVersion (400, 405, 406, 415, 422: a server without watch-list), or ignores the
 *   parameter (a plain BOOKMARK arrives before the end bookmark). A shard selector makes it use
 *   lists, since only a list body tells whether the server filtered (`metadata.shardInfo`).
 *
 * @example
 * ```ts
 * import { Kinds, Reflector, type InitialState } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * // A server known to lack watch-list: skip the first, refused request.
 * const initialState: InitialState = 'list';
 * const pods = new Reflector({ kubeConfig, type: Kinds.Pod, initialState });
 * ```
 */
export type InitialState = 'watch-list' | 'list' | 'auto';

/**
 * How a {@link Reflector} reaches the server and what it reflects.
 *
 * @example
 * ```ts
 * import { Kinds, Reflector, type ReflectorOptions } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const options: ReflectorOptions = { kubeConfig, type: Kinds.Pod, namespace: 'shop', labelSelector: 'app=web', pageSize: 500, inactivityTimeoutMs: 120_000 };
 * const pods = new Reflector(options);
 * ```
 */
export interface ReflectorOptions<R extends KubernetesObject = KubernetesObject> {
  /** Where and as whom to connect; all traffic uses its authentication and TLS settings. */
  readonly kubeConfig: KubeConfig;
  /** The resource type to list and watch. */
  readonly type: ResourceType;
  /** Only this namespace, for a namespaced type. Defaults to all namespaces. */
  readonly namespace?: string;
  /** Server-side label selector, for example `app=web,tier!=db`. Defaults to none. */
  readonly labelSelector?: string;
  /** Server-side field selector, for example `status.phase=Running`. Defaults to none. */
  readonly fieldSelector?: string;
  /**
   * Only the objects of these hash ranges (KEP-5866): sent as `shardSelector` on list and watch,
   * and applied here too, so a server without the `ShardedListAndWatch` gate (which ignores the
   * parameter and sends everything) gives the same view, only at the cost of the traffic.
   * Defaults to none (every object).
   */
  readonly shardSelector?: ShardSelector | string;
  /**
   * How the initial state is read: streamed by a watch-list request, or listed in pages (see
   * {@link InitialState}). Defaults to `'auto'` (watch-list, falling back to lists).
   */
  readonly initialState?: InitialState;
  /** Objects per list page (`limit`). Defaults to 500. */
  readonly pageSize?: number;
  /**
   * Server-side timeout of each watch; the reflector then re-watches from its resourceVersion
   * without relisting. Defaults to a random 300-600 s per watch, as client-go, so that many
   * clients do not reconnect together.
   */
  readonly watchTimeoutSeconds?: number;
  /**
   * Silence tolerated on an open request before it is treated as a dead (half-open) connection
   * and replaced: it is replaced after between this and 1.25 times this (the watchdog checks a
   * quarter of it at a time instead of reading the clock on every chunk). Must exceed the
   * server's bookmark period (about 60 s on kube-apiserver). Defaults to 150 000 ms.
   */
  readonly inactivityTimeoutMs?: number;
  /** Reconnect backoff. Defaults to 800 ms doubling to 30 s, jitter 1, reset after 2 min. */
  readonly backoff?: BackoffOptions;
  /**
   * The wire format of lists and watches. `'cbor'` asks for CBOR (`application/cbor`, watches as
   * `application/cbor-seq`) with JSON as the fallback, as client-go does when CBOR is allowed:
   * kube-apiserver serves it with its `CBORServingAndStorage` feature gate (alpha in 1.36), and a
   * server without it answers JSON, which is then read as JSON. Objects are the same either way.
   *
   * Caveats: in Node, decoding kube-apiserver's CBOR is slower than `JSON.parse` for the bench's
   * objects (bench/decoders: `pnpm decoders`); choose CBOR for the server's sake (its encoding
   * cost, smaller bodies), not for the client's CPU. Informers shared through an InformerRegistry
   * keep the wire of their first user. Defaults to `'json'`.
   */
  readonly wire?: 'json' | 'cbor';
  /**
   * Reshapes each object before it is cached; `null` keeps objects exactly as sent.
   * Defaults to {@link keepAppliedFields}.
   */
  readonly transform?: ObjectTransform<R> | null;
  /**
   * The store to keep the objects in, empty and written by nobody else: a subclass of
   * {@link IndexedStore} that keeps less in memory (the shared informer's bounded store).
   * Defaults to a new `IndexedStore`.
   */
  readonly store?: IndexedStore<R>;
  /**
   * The one consumer called directly with each change, before any `onDelta` listener (the shared
   * informer built on the reflector). Defaults to none.
   */
  readonly sink?: ReflectorSink<R>;
  /**
   * The name of the cluster this reflector watches when it is not the operator's own (a remote
   * source): it prefixes the errors its health reports (`cluster <name>: ...`) and labels its
   * informer's metrics. Defaults to none (the operator's cluster).
   */
  readonly cluster?: string;
}

/**
 * The connection tuning (`reflector`) options of controllers and event sources.
 *
 * @example
 * ```ts
 * import { InformerEventSource, Kinds, type ReflectorTuningOptions } from '@kindex/informer';
 *
 * // Smaller pages and a shorter watch for a kind with large objects.
 * const reflector: ReflectorTuningOptions = { pageSize: 100, watchTimeoutSeconds: 120, backoff: { maxMs: 10_000 } };
 * const source = InformerEventSource.from(Kinds.ConfigMap).withReflectorOptions(reflector);
 * ```
 */
export type ReflectorTuningOptions = Pick<
  ReflectorOptions,
  'initialState' | 'pageSize' | 'watchTimeoutSeconds' | 'inactivityTimeoutMs' | 'backoff' | 'wire'
>;

/**
 * {@link ReflectorTuningOptions}' keys and value checks, `backoff`'s own included (`initialState`,
 * `inactivityTimeoutMs` and `wire` are checked by the reflector, whose errors name the choices).
 */
export const REFLECTOR_TUNING_OPTIONS = defineOptions<ReflectorTuningOptions>('reflector options', {
  initialState: Type.Optional(Type.Unknown()),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, description: 'a whole number of objects per list page, 1 or more' })),
  watchTimeoutSeconds: Type.Optional(Type.Integer({ minimum: 1, description: 'a whole number of seconds, 1 or more' })),
  inactivityTimeoutMs: Type.Optional(Type.Unknown()),
  backoff: Type.Optional(BACKOFF_OPTIONS.schema),
  wire: Type.Optional(Type.Unknown()),
});

/** {@link ReflectorOptions}' keys and value checks, `backoff`'s own included. */
export const REFLECTOR_OPTIONS = defineOptions<ReflectorOptions>('Reflector options', {
  kubeConfig: Type.Unknown(),
  type: Type.Unknown(),
  namespace: Type.Optional(Type.String({ description: "a namespace name ('' or left out for all namespaces)" })),
  labelSelector: Type.Optional(Type.String({ description: "a label selector such as 'app=web'" })),
  fieldSelector: Type.Optional(Type.String({ description: "a field selector such as 'metadata.name=web'" })),
  shardSelector: Type.Optional(Type.Unknown()),
  ...REFLECTOR_TUNING_OPTIONS.properties,
  transform: Type.Optional(Type.Unknown()),
  store: Type.Optional(Type.Unknown()),
  sink: Type.Optional(Type.Unknown()),
  cluster: Type.Optional(Type.String({ description: 'a cluster name' })),
});

/** The `initialState` option, checked: a misspelt mode is a configuration error, not a silent `auto`. */
export function initialStateOf(options: Pick<ReflectorOptions, 'initialState'>): InitialState {
  const mode = options.initialState ?? 'auto';
  if (mode === 'auto' || mode === 'watch-list' || mode === 'list') return mode;
  throw new TypeError(
    `Reflector options: initialState must be 'auto', 'watch-list' or 'list', got ${JSON.stringify(mode)}; fix the option or leave it out for 'auto'`,
  );
}

/**
 * Options of {@link Reflector.waitForSync}.
 *
 * @example
 * ```ts
 * import type { Reflector, WaitForSyncOptions } from '@kindex/informer';
 * import { isNonTransient } from '@kindex/informer';
 * declare const reflector: Reflector;
 *
 * // Stop waiting at the first 403 instead of retrying until the timeout.
 * const options: WaitForSyncOptions = { timeoutMs: 60_000, rejectOn: (error) => isNonTransient(error) };
 * const synced = await reflector.waitForSync(options);
 * ```
 */
export interface WaitForSyncOptions {
  /** Gives up (resolving `false`) after this many milliseconds. Defaults to waiting forever. */
  readonly timeoutMs?: number;
  /** Gives up (resolving `false`) when aborted. Defaults to none. */
  readonly signal?: AbortSignal;
  /**
   * Rejects with the reflector's error when it meets one this returns true for before the first
   * list completes (for example {@link isNonTransient}: fail fast on RBAC or a missing CRD).
   * The reflector itself goes on retrying; stopping it is the caller's decision. Defaults to
   * never rejecting.
   */
  readonly rejectOn?: (error: Error) => boolean;
}

/** {@link WaitForSyncOptions}' keys and value checks. */
export const WAIT_FOR_SYNC_OPTIONS = defineOptions<WaitForSyncOptions>('Reflector.waitForSync options', {
  timeoutMs: Type.Optional(Type.Unknown()),
  signal: Type.Optional(Type.Unknown()),
  rejectOn: Type.Optional(Type.Function([Type.Unknown()], Type.Boolean(), { description: 'a function of an error returning a boolean' })),
});
