import type { KubernetesObject } from '../resource/kubernetes-object.js';
import { ResourceID } from '../resource/resource-id.js';
import { POLLING_LOOP_OPTION_SCHEMAS, PollingLoop, type PollingLoopOptions } from './internal/polling-loop.js';
import Type from 'typebox';
import { defineOptions } from '../options/define-options.js';

/**
 * Options of {@link PollingEventSource}.
 *
 * @example
 * ```ts
 * import { PollingEventSource, secondaryType, type PollingEventSourceOptions } from '@kindex/core';
 * type Bucket = { readonly name: string; readonly owner: string };
 * declare function listBuckets(): Promise<Bucket[]>;
 *
 * const Buckets = secondaryType<Bucket>('Bucket');
 * const options: PollingEventSourceOptions<Bucket> = {
 *   resourceType: Buckets,
 *   periodMs: 30_000,
 *   // Group the external objects by the key (namespace/name) of the primary they belong to.
 *   fetch: async () => {
 *     const byOwner = new Map<string, Bucket[]>();
 *     for (const b of await listBuckets()) byOwner.set(b.owner, [...(byOwner.get(b.owner) ?? []), b]);
 *     return byOwner;
 *   },
 * };
 * const buckets = new PollingEventSource(options);
 * ```
 */
export interface PollingEventSourceOptions<R> extends PollingLoopOptions<R> {
  /**
   * Fetches the resources of every primary at once, keyed by the primary's ID or key
   * (`namespace/name`). A primary missing from the result has no resources.
   */
  readonly fetch: () => Promise<Iterable<readonly [ResourceID | string, readonly R[]]>>;
}

/** {@link PollingEventSourceOptions}' keys and value checks. */
const POLLING_EVENT_SOURCE_OPTIONS = defineOptions<PollingEventSourceOptions<unknown>>('PollingEventSource options', {
  ...POLLING_LOOP_OPTION_SCHEMAS,
  fetch: Type.Function([], Type.Unknown(), { description: 'a function returning a promise of [id, resources] pairs' }),
});

/**
 * Polls an external system for the resources of all primaries in one call, caches them by
 * primary, and triggers each primary whose resources appeared, changed or vanished (JOSDK
 * `PollingEventSource`).
 *
 * Choose it when the system lists in bulk cheaply; otherwise see
 * {@link PerResourcePollingEventSource}. The first poll (during `start()`) fills the cache
 * without triggering: the primaries' first reconciles read it. A failed poll keeps the last
 * cache, marks the source unhealthy and is retried next period. Lists compare element by
 * element in order, so return them in a stable order.
 *
 * @example
 * ```ts
 * import { PollingEventSource, secondaryType } from '@kindex/core';
 * type Bucket = { readonly name: string; readonly owner: string };
 * declare const s3: { listBuckets(): Promise<Bucket[]> };
 * declare function groupByOwner(buckets: Bucket[]): Map<string, Bucket[]>;
 * const buckets = new PollingEventSource({
 *   resourceType: secondaryType<Bucket>('s3/Bucket'),
 *   periodMs: 30_000,
 *   fetch: async () => groupByOwner(await s3.listBuckets()),
 * });
 * ```
 */
export class PollingEventSource<R, P extends KubernetesObject = KubernetesObject> extends PollingLoop<R, P> {
  readonly #fetch: () => Promise<Iterable<readonly [ResourceID | string, readonly R[]]>>;

  constructor(options: PollingEventSourceOptions<R>) {
    // Before super(): the loop would otherwise start from options it half ignores.
    POLLING_EVENT_SOURCE_OPTIONS.check(options);
    super(options);
    this.#fetch = options.fetch;
  }

  protected async round(initial: boolean, isCurrent: () => boolean): Promise<void> {
    const fetched = await this.#fetch();
    if (!isCurrent()) return;
    const seen = new Set<string>();
    for (const [id, resources] of fetched) {
      const key = id instanceof ResourceID ? id.key : id;
      seen.add(key);
      this.store(key, resources, !initial);
    }
    for (const key of this.cachedKeys()) if (!seen.has(key)) this.evict(key, !initial);
  }
}
