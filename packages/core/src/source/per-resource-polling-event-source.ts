import type { KubernetesObject } from '../resource/kubernetes-object.js';
import { ResourceID } from '../resource/resource-id.js';
import { POLLING_LOOP_OPTION_SCHEMAS, PollingLoop, type PollingLoopOptions } from './internal/polling-loop.js';
import Type from 'typebox';
import { defineOptions } from '../options/define-options.js';

/**
 * Options of {@link PerResourcePollingEventSource}.
 *
 * @example
 * ```ts
 * import { PerResourcePollingEventSource, secondaryType, type KubernetesObject, type PerResourcePollingEventSourceOptions } from '@kindex/core';
 * type Dns = { readonly record: string };
 * declare function lookup(name: string): Promise<Dns[]>;
 * declare const webApps: readonly KubernetesObject[];
 *
 * const options: PerResourcePollingEventSourceOptions<Dns, KubernetesObject> = {
 *   resourceType: secondaryType<Dns>('DnsRecord'),
 *   periodMs: 120_000,
 *   concurrency: 4,
 *   primaries: () => webApps,
 *   fetch: (webApp) => lookup(webApp.metadata!.name!),
 * };
 * const dns = new PerResourcePollingEventSource(options);
 * ```
 */
export interface PerResourcePollingEventSourceOptions<R, P extends KubernetesObject> extends PollingLoopOptions<R> {
  /** Fetches the resources of one primary. */
  readonly fetch: (primary: P) => Promise<readonly R[]>;
  /**
   * The primaries to poll, read at the start of every round: usually the primary cache's
   * `list()` (from `EventSourceContext.primaryCache`).
   */
  readonly primaries: () => Iterable<P>;
  /** Fetches running at once within a round. Defaults to 10. */
  readonly concurrency?: number;
}

/** {@link PerResourcePollingEventSourceOptions}' keys and value checks. */
const PER_RESOURCE_POLLING_EVENT_SOURCE_OPTIONS = defineOptions<PerResourcePollingEventSourceOptions<unknown, KubernetesObject>>(
  'PerResourcePollingEventSource options',
  {
    ...POLLING_LOOP_OPTION_SCHEMAS,
    fetch: Type.Function([Type.Unknown()], Type.Unknown(), { description: 'a function of a primary returning a promise of its resources' }),
    primaries: Type.Function([], Type.Unknown(), { description: 'a function returning the primaries to poll' }),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, description: 'a whole number of fetches, 1 or more' })),
  },
);

/**
 * Polls an external system once per known primary each period, caches the results by primary
 * and triggers each primary whose resources changed (JOSDK `PerResourcePollingEventSource`).
 *
 * Primaries are those `primaries()` returns when a round starts; the cache of a primary no
 * longer listed is dropped without a trigger (its deletion is the primary source's business).
 * One failing fetch marks the source unhealthy and keeps that primary's last resources; the
 * other primaries are still polled. The round during `start()` triggers nothing.
 *
 * Caveats: a primary created between rounds has no resources until the next round (which then
 * triggers it when it finds some); call `refresh(primary)` to fetch at once.
 *
 * @example
 * ```ts
 * import { PerResourcePollingEventSource, secondaryType, type KubernetesObject, type PrimaryCacheReader } from '@kindex/core';
 * type Database = { readonly name: string; readonly ready: boolean };
 * declare const primaries: PrimaryCacheReader;
 * declare function describeDatabase(name: string): Promise<Database | undefined>;
 *
 * // Ask the cloud API about each primary's database every minute.
 * const databases = new PerResourcePollingEventSource<Database, KubernetesObject>({
 *   resourceType: secondaryType<Database>('Database'),
 *   periodMs: 60_000,
 *   primaries: () => primaries.list(),
 *   fetch: async (primary) => {
 *     const db = await describeDatabase(primary.metadata!.name!);
 *     return db ? [db] : [];
 *   },
 * });
 * ```
 */
export class PerResourcePollingEventSource<R, P extends KubernetesObject = KubernetesObject> extends PollingLoop<R, P> {
  readonly #fetch: (primary: P) => Promise<readonly R[]>;
  readonly #primaries: () => Iterable<P>;
  readonly #concurrency: number;

  constructor(options: PerResourcePollingEventSourceOptions<R, P>) {
    // Before super(): the loop would otherwise start from options it half ignores.
    PER_RESOURCE_POLLING_EVENT_SOURCE_OPTIONS.check(options);
    super(options);
    this.#fetch = options.fetch;
    this.#primaries = options.primaries;
    this.#concurrency = Math.max(1, options.concurrency ?? 10);
  }

  /**
   * Fetches one primary's resources now (for example right after it was created, instead of
   * waiting for the next round), stores them and triggers the primary if they changed.
   * Rejects with the fetch error; the cache keeps the last resources then.
   */
  async refresh(primary: P): Promise<readonly R[]> {
    const key = ResourceID.keyOfResource(primary);
    const resources = await this.#fetch(primary);
    this.store(key, resources, true);
    return this.getSecondaryResources(primary);
  }

  protected async round(initial: boolean, isCurrent: () => boolean): Promise<void> {
    const primaries = new Map<string, P>();
    for (const p of this.#primaries()) primaries.set(ResourceID.keyOfResource(p), p);
    for (const key of this.cachedKeys()) if (!primaries.has(key)) this.evict(key, false);

    const pending = [...primaries];
    const failures: unknown[] = [];
    const worker = async (): Promise<void> => {
      for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
        const [key, primary] = next;
        try {
          const resources = await this.#fetch(primary);
          if (isCurrent()) this.store(key, resources, !initial);
        } catch (error) {
          failures.push(new Error(`${this.name}: fetch for ${key} failed`, { cause: error }));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#concurrency, pending.length) }, worker));
    if (failures.length > 0) {
      throw failures.length === 1 ? failures[0] : new AggregateError(failures, `${this.name}: ${failures.length} fetches failed`);
    }
  }
}
