/**
 * The options of a controller (`Operator.register`'s second argument), their keys for the
 * unknown-option check, and the checks the constructor runs on them.
 *
 * @module
 */
import { defineOptions, positiveMilliseconds } from '@kindex/core/internal';
import type { ControllerConfigurationOptions, KubernetesObject, Predicate, ShardSelector, StopOptions } from '@kindex/core';
import Type from 'typebox';
import type { Workflow } from '../dependent/workflow.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import { REFLECTOR_TUNING_OPTIONS, type ReflectorTuningOptions } from '../reflector/reflector-options.js';
import type { PrimaryWriteMode } from './primary-writer.js';
import { CACHE_BOUND_OPTIONS, type CacheBound } from '../cache/bounded/cache-bound.js';
import type { WrittenResource } from './written-resource.js';

/**
 * How to register a reconciler: the primary kind plus controller configuration.
 *
 * @example
 * ```ts
 * import { Kinds, resourceKind, type ControllerOptions } from '@kindex/informer';
 * import { generationChanged, type KubernetesObject } from '@kindex/core';
 * type WebApp = KubernetesObject & { spec: { replicas: number } };
 * const WebApps = resourceKind<WebApp>({ group: 'example.com', version: 'v1', plural: 'webapps', kind: 'WebApp', namespaced: true });
 *
 * const options: ControllerOptions<WebApp> = {
 *   kind: WebApps,
 *   namespaces: ['shop'],
 *   finalizerName: 'example.com/cleanup',
 *   primaryEventFilters: [generationChanged()],
 *   concurrency: 4,
 *   whenCrdMissing: 'wait', // start before the CRD is installed
 * };
 * ```
 */
export type ControllerOptions<P extends KubernetesObject> = Partial<Omit<ControllerConfigurationOptions, 'primaryType'>> & {
  /** The primary kind. */
  readonly kind: ResourceKind<P>;
  /**
   * Controller-wide event filters: applied to the events of the primary and of every event
   * source built from the controller's context, ANDed with each source's own filters.
   */
  readonly eventFilters?: readonly Predicate<KubernetesObject>[];
  /** Filters on primary events only, ANDed with `eventFilters` and generation awareness. */
  readonly primaryEventFilters?: readonly Predicate<P>[];
  /**
   * kopf's stealth mode for the primaries: a primary that does not pass this filter (judged on
   * its state, as a `generic` event) is invisible: never reconciled, whatever triggers it. One
   * that starts passing arrives as a `create` and is reconciled; one that stops passing arrives
   * as a `delete`, which drops its pending work (queued reconciles, retries) without a reconcile.
   * Invisible primaries that carry the controller's finalizer still get `cleanup` when deleted,
   * so they never hang in deletion. Applied before `eventFilters` and `primaryEventFilters`.
   * Defaults to none (every cached primary is visible).
   */
  readonly stealthFilter?: Predicate<P>;
  /** Whether the primary kind has a status subresource (status patches go to `/status`). Defaults to true. */
  readonly statusSubresource?: boolean;
  /**
   * Make the controller's writes to primaries conditional on the resourceVersion the reconcile
   * read (409 when it changed meanwhile, then a retry). `Operator` turns it on under leader
   * election and sharding so a deposed leader's or shard owner's late writes are refused.
   * Defaults to false.
   */
  readonly optimisticLocking?: boolean;
  /** How status and resource writes of `UpdateControl` are sent (JSON patch or server-side apply). Defaults to `patch`. */
  readonly primaryWrites?: PrimaryWriteMode;
  /** Connection tuning of the primary informers. */
  readonly reflector?: ReflectorTuningOptions;
  /**
   * What `start()` does when the primary kind is not served (its CRD is not installed):
   * `'fail'` rejects with a `CacheSyncError` naming the CRD; `'wait'` resolves at once, keeps the
   * controller `starting` (health carries the error) and starts it when the CRD appears, while
   * the other controllers run. Defaults to `'fail'`.
   */
  readonly whenCrdMissing?: 'fail' | 'wait';
  /** How often a controller waiting for its CRD checks for it, in milliseconds. Defaults to 10 000. */
  readonly crdPollIntervalMs?: number;
  /**
   * Server-side field selector of the primaries (for example `metadata.name=main`): only the
   * matching primaries are listed, watched, cached and reconciled. Reading a primary the selector
   * excludes from the primary cache throws `NotCachedError`, as for event sources.
   */
  readonly fieldSelector?: string;
  /**
   * Dependent resources the controller reconciles itself, before each `reconcile` (JOSDK's managed
   * workflow): their event sources join the reconciler's own; a dependent that fails fails the
   * reconcile (retried with backoff, `reconcile` not called); on deletion `Workflow.cleanup` runs
   * first, and the finalizer stays until every dependent it deletes is gone. A workflow with a
   * dependent no owner reference can cover (cluster-scoped, namespaced primary) gives the
   * controller a finalizer even without `cleanup`. The reconciler reads what the run did with
   * `workflow.resultOf(context)`.
   */
  readonly workflow?: Workflow<P>;
  /**
   * Reconcile the namespaces whose Namespace object matches this label selector (for example
   * `'example.com/managed=true'`), followed at run time: a namespace that gains the label is
   * added (its primaries are reconciled once, with synced secondaries), one that loses it is
   * dropped from the caches without reconciling anything else. Event sources that inherit the
   * controller's namespaces follow. Needs list and watch on namespaces (a 403 fails `start()`
   * with the ClusterRole to grant). Excludes `namespaces`. Defaults to none.
   */
  readonly namespaceSelector?: string;
  /**
   * Only the primaries of these hash ranges (KEP-5866 `shardRange` syntax or a parsed
   * `ShardSelector`): sent to the server as `shardSelector` and applied client-side when the
   * server lacks the `ShardedListAndWatch` gate. Event sources inherit it when it shards by
   * `object.metadata.namespace`, which keeps each primary's secondaries in the same replica's
   * caches. Change it at run time with `changeShardSelector`. Defaults to none (every primary).
   */
  readonly shardSelector?: ShardSelector | string;
  /**
   * Kinds the reconciler writes itself through `context.getClient()`, for
   * `Operator.rbacManifest()` (kubebuilder's `+kubebuilder:rbac` markers, JOSDK's `@RBACRule`).
   * The manifest grants read verbs on every watched kind and write verbs only on what kindex
   * writes (primary status and finalizers, workflow dependents, leases) and on these. A kind
   * alone gets `create`, `update`, `patch` and `delete`; `{ kind, verbs }` narrows that. List the
   * primary kind when `reconcile` returns `patchResource`. Defaults to none.
   */
  readonly writes?: readonly WrittenResource[];
  /**
   * Keep what `describePrimary` and `/debug/controllers/<name>/primaries/...` show: the causes
   * gathered for each primary's next reconcile and a record of its last one (id, start, causes,
   * result). Off, a reconcile leaves nothing behind and the processor counts triggers without
   * keeping what they were: both answer `inspection: false` with a hint instead, and the
   * `reconcile failed` line gives the trigger count, not the list of causes. Debug lines (the
   * `reconciled` line of each reconcile) list their causes whenever they are written: the
   * causes are kept while the controller's logger writes debug lines, inspection or not.
   * Metrics, the reconcile id on the reconciler's own lines and `events$` do not depend on it.
   * Defaults to the Operator's `inspection`; for a controller built without one, to
   * `KINDEX_INSPECTION` in the environment (`true` or `false`), else false. `@kindex/testing`'s
   * `startTestApiServer()` sets `KINDEX_INSPECTION=true` unless it is set, so tests see records.
   */
  readonly inspection?: boolean;
  /**
   * Keep only some primaries in memory (JOSDK's bounded caches): at most `maxObjects`, and/or
   * those used within `expireAfterAccessMs`. Every primary is still watched and every event
   * still triggers; a reconcile of a primary that left memory first reads it from the API server
   * (one GET), and the cache keeps it again. Choose it when the controller watches far more
   * primaries than it reconciles at a time: memory stays flat (about 80 bytes per primary out of
   * memory against its whole body), each cold reconcile costs an API read. Caveats: the
   * reconciler's `getPrimaryCache()` sees only the primaries in memory; not with `shardSelector`;
   * the initial list still holds every primary until it is complete. See {@link CacheBound}.
   * Defaults to every primary in memory.
   */
  readonly cacheBound?: CacheBound;
};

/**
 * {@link ControllerOptions}' keys (the nested `reflector` and `cacheBound` options' own included)
 * and the checks of the values nothing else checks; `kind`, the queue and timing options, `name`,
 * `namespaces`, `whenCrdMissing`, `writes` and the bound keep the checks of their receivers.
 */
export const CONTROLLER_OPTIONS = defineOptions<ControllerOptions<KubernetesObject>>('controller options', {
  kind: Type.Unknown(),
  eventFilters: Type.Optional(Type.Unknown()),
  primaryEventFilters: Type.Optional(Type.Unknown()),
  stealthFilter: Type.Optional(Type.Unknown()),
  statusSubresource: Type.Optional(Type.Boolean({ description: 'true or false' })),
  reflector: Type.Optional(REFLECTOR_TUNING_OPTIONS.schema),
  fieldSelector: Type.Optional(Type.String({ description: "a field selector such as 'metadata.name=web'" })),
  namespaceSelector: Type.Optional(Type.String({ description: "a label selector of namespaces such as 'team=shop'" })),
  shardSelector: Type.Optional(Type.Unknown()),
  name: Type.Optional(Type.Unknown()),
  namespaces: Type.Optional(Type.Unknown()),
  labelSelector: Type.Optional(Type.String({ description: "a label selector such as 'app=web'" })),
  finalizerName: Type.Optional(Type.String({ description: "a finalizer name such as 'example.com/cleanup'" })),
  generationAware: Type.Optional(Type.Boolean({ description: 'true or false' })),
  concurrency: Type.Optional(Type.Unknown()),
  retry: Type.Optional(Type.Unknown()),
  rateLimiter: Type.Optional(Type.Unknown()),
  queue: Type.Optional(Type.Unknown()),
  maxReconciliationIntervalMs: Type.Optional(Type.Unknown()),
  reconcileTimeoutMs: Type.Optional(Type.Unknown()),
  whenCrdMissing: Type.Optional(Type.Unknown()),
  crdPollIntervalMs: Type.Optional(Type.Unknown()),
  optimisticLocking: Type.Optional(Type.Boolean({ description: 'true or false' })),
  primaryWrites: Type.Optional(Type.Union([Type.Literal('patch'), Type.Literal('apply')], { description: "'patch' or 'apply'" })),
  workflow: Type.Optional(Type.Unknown()),
  writes: Type.Optional(Type.Unknown()),
  inspection: Type.Optional(Type.Unknown()),
  cacheBound: Type.Optional(CACHE_BOUND_OPTIONS.schema),
});

/** The options of `Controller.stop` and `Operator.stop`: unknown keys are rejected, not ignored. */
export const STOP_OPTIONS = defineOptions<StopOptions>('stop options', {
  drainTimeoutMs: Type.Optional(Type.Number({ minimum: 0, description: 'a number of milliseconds, 0 or more' })),
});

/** The environment variable that turns inspection on where no option says (see `ControllerOptions.inspection`). */
export const INSPECTION_ENV = 'KINDEX_INSPECTION';

/**
 * Whether inspection is on: `option` when it is given (checked), else `KINDEX_INSPECTION` in the
 * environment, else false. `owner` names what is configured in the error.
 */
export function resolveInspection(option: unknown, owner: string): boolean {
  if (option !== undefined) {
    if (typeof option !== 'boolean') throw new TypeError(`${owner}: inspection must be true or false, got ${JSON.stringify(option)}`);
    return option;
  }
  const value = process.env[INSPECTION_ENV];
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw new TypeError(`${owner}: environment variable ${INSPECTION_ENV} must be true or false, got ${JSON.stringify(value)}`);
}

/** What `start()` does when the primary kind is not served, checked. */
export function validateCrdPolicy(
  whenCrdMissing: unknown,
  pollIntervalMs: unknown,
  kind: ResourceKind<KubernetesObject>,
): { wait: boolean; pollIntervalMs: number } {
  if (whenCrdMissing !== undefined && whenCrdMissing !== 'fail' && whenCrdMissing !== 'wait') {
    throw new TypeError(`controller of ${kind.name}: whenCrdMissing must be 'fail' or 'wait', got ${JSON.stringify(whenCrdMissing)}`);
  }
  return {
    wait: whenCrdMissing === 'wait',
    pollIntervalMs: positiveMilliseconds(pollIntervalMs, `controller of ${kind.name}: crdPollIntervalMs`) ?? 10_000,
  };
}
