/**
 * Event sources: where reconciles come from.
 *
 * An {@link EventSource} tells the event processor which primaries to reconcile (by a direct
 * call to the {@link TriggerSink} it was connected to, to its `onTrigger` listener, or on its
 * `triggers$` Observable) and, if it caches
 * secondary resources, serves them to `Context`.
 * Built-ins here are Kubernetes-agnostic: {@link TimerEventSource} (reconcile a primary at a
 * time), {@link PollingEventSource} (one fetch for all primaries, for APIs that list in bulk)
 * and {@link PerResourcePollingEventSource} (one fetch per known primary). The Kubernetes layer
 * adds informer-backed sources in `@kindex/informer`.
 */
import type { Observable } from 'rxjs';
import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { ShardSelector } from '../shard/shard-selector.js';
import type { SecondaryType } from './secondary-type.js';
import type { Trigger } from './trigger.js';
import type { TriggerSink } from './trigger-sink.js';

/**
 * The contract every event source fulfils.
 *
 * - `triggers$` (or `onTrigger`, which the processor prefers) is hot: the processor connects
 *   before `start()` and may connect late;
 *   triggers emitted with no subscriber are lost, so a source emits only while started. It must
 *   not error or complete while the source runs: failures go to `health$` and the source keeps
 *   going (one bad object never stops the others).
 * - `start()` resolves when the source is ready to serve `getSecondaryResources` (a cache has
 *   synced). `stop()` resolves when it emits no more triggers; it may be started again.
 * - `getSecondaryResources(primary)` is synchronous and reads the source's cache only, never the
 *   network; it returns frozen objects that the caller must not change.
 * - `snapshot()`, when present, returns a reader frozen at the time of the call; a `Context`
 *   takes one per source when it is created so a whole reconcile reads one consistent view.
 *   Sources without it are read live.
 * - Optional members a controller uses when a source has them, so callers need no type test:
 *   `problems$` (what it moved past: reported, never on `triggers$`), `hasSynced` and
 *   `pendingSync` (what a readiness probe and a start that timed out report), and the scope a
 *   source may share with its controller (`namespaces`, `inheritsNamespaces`,
 *   `changeNamespaces`, `inheritsShardSelector`, `changeShardSelector`), whose changes resolve
 *   once the new scope has synced. `statistics` feeds debug views.
 *
 * @typeParam R the secondary resources it serves (`never` for sources that serve none).
 * @typeParam P the primary resource of the controller.
 *
 * @example
 * ```ts
 * import { secondaryType, type EventSource, type EventSourceHealth, type Trigger } from '@kindex/core';
 * import { BehaviorSubject, Subject } from 'rxjs';
 *
 * // A source fed by a webhook receiver of an external CI system.
 * class BuildWebhookSource implements EventSource<never> {
 *   readonly name = 'build-webhooks';
 *   readonly #triggers = new Subject<Trigger>();
 *   readonly #health = new BehaviorSubject<EventSourceHealth>({ source: this.name, status: 'stopped' });
 *   readonly triggers$ = this.#triggers.asObservable();
 *   readonly health$ = this.#health.asObservable();
 *   async start(): Promise<void> { this.#health.next({ source: this.name, status: 'healthy' }); }
 *   async stop(): Promise<void> { this.#health.next({ source: this.name, status: 'stopped' }); }
 * }
 * ```
 */
export interface EventSource<R = unknown, P extends KubernetesObject = KubernetesObject> {
  /** Unique within a controller; `Context` lookups and error messages use it. */
  readonly name: string;
  /** The type of resources it serves; undefined for sources that serve none (timers). */
  readonly resourceType?: SecondaryType<R> | undefined;
  /** The primaries to reconcile, as they come. */
  readonly triggers$: Observable<Trigger>;
  /**
   * Calls `listener` with every trigger, as `triggers$` does but as a plain call: when a source
   * has it, the event processor connects through it, so a trigger reaches the processor by one
   * direct call and no rxjs hop (a source may then derive `triggers$` from its listeners, at no
   * cost while nobody subscribes). Returns the function that removes the listener. Defaults to
   * none: the processor subscribes to `triggers$`.
   */
  onTrigger?(listener: (trigger: Trigger) => void): () => void;
  /**
   * Makes `sink` the consumer of every trigger, called directly (`sink.accept(trigger)`): the
   * event processor connects through it first, then `onTrigger`, then `triggers$`. A source has
   * one sink at a time (connecting another replaces it); `triggers$` and `onTrigger` listeners
   * still get each trigger after the sink. Returns the function that disconnects the sink.
   * Defaults to none.
   */
  connect?(sink: TriggerSink): () => void;
  /** The source's health; replays the current state to new subscribers. */
  readonly health$: Observable<EventSourceHealth>;
  /**
   * Starts emitting triggers; resolves once `getSecondaryResources` can answer (for a cache: once
   * it has synced). `options.signal` aborts the wait (a source that ignores it is raced).
   */
  start(options?: EventSourceStartOptions): Promise<void>;
  /** Stops emitting triggers and releases timers, watches and connections; the source may be started again. */
  stop(): Promise<void>;
  /** The secondary resources of `primary` in the source's cache, now. */
  getSecondaryResources?(primary: P): readonly R[];
  /** A reader of the cache as it is now, unaffected by later changes. */
  snapshot?(): SecondaryResourceReader<R, P>;
  /** Problems met and moved past (a throwing mapper or filter, a failed request). Defaults to none. */
  readonly problems$?: Observable<EventSourceProblem>;
  /** Whether its cache holds everything it watches now. Defaults to: synced once `start()` resolved. */
  hasSynced?(): boolean;
  /** What it still waits for (a start that timed out names it). Defaults to: nothing to name. */
  pendingSync?(): EventSourcePendingSync;
  /** The namespaces it watches (`'all'` for every one). Defaults to: not namespaced. */
  readonly namespaces?: 'all' | readonly string[];
  /** The label selector on Namespace objects choosing its namespaces, when it has its own. */
  readonly namespaceSelector?: string | undefined;
  /** True when it watches its controller's namespaces and follows their changes (`changeNamespaces`). */
  readonly inheritsNamespaces?: boolean;
  /** Watches `namespaces` instead; resolves once they have synced. */
  changeNamespaces?(namespaces: 'all' | readonly string[]): Promise<void>;
  /** True when it follows its controller's shard selector (`changeShardSelector`). */
  readonly inheritsShardSelector?: boolean;
  /** Narrows what it watches to `selector`'s shards (undefined: all); resolves once synced. */
  changeShardSelector?(selector: ShardSelector | undefined): Promise<void>;
  /** Cache figures for debug views. Defaults to none. */
  statistics?(): EventSourceStatistics;
}

/**
 * Options of {@link EventSource.start}.
 *
 * @example
 * ```ts
 * import type { EventSource, EventSourceStartOptions } from '@kindex/core';
 * declare const source: EventSource;
 *
 * const options: EventSourceStartOptions = { signal: AbortSignal.timeout(60_000) };
 * await source.start(options);
 * ```
 */
export interface EventSourceStartOptions {
  /** Ends the wait for the source's sync: `start()` rejects and the source is stopped. Defaults to none. */
  readonly signal?: AbortSignal;
}

/**
 * A problem an event source met and moved past, as `problems$` reports it.
 *
 * @example
 * ```ts
 * import type { EventSource, EventSourceProblem } from '@kindex/core';
 * declare const source: EventSource;
 *
 * // A mapper or filter that threw on one object: reported here, the object's event is not lost.
 * source.problems$?.subscribe((problem: EventSourceProblem) => console.warn(`${problem.source}:`, problem.error));
 * ```
 */
export interface EventSourceProblem {
  /** The source's name. */
  readonly source: string;
  readonly error: unknown;
}

/**
 * What an event source still waits for before it has synced.
 *
 * @example
 * ```ts
 * import type { EventSource, EventSourcePendingSync } from '@kindex/core';
 * declare const source: EventSource;
 *
 * const pending: EventSourcePendingSync | undefined = source.pendingSync?.();
 * if (pending !== undefined && pending.namespaces.length > 0) console.log(`${pending.kind} waits for ${pending.namespaces.join(', ')}`);
 * ```
 */
export interface EventSourcePendingSync {
  /** What it holds, as `plural.group/version` for a Kubernetes kind. */
  readonly kind: string;
  /** The namespaces not synced yet (`''` for all namespaces); empty once synced. */
  readonly namespaces: readonly string[];
  /** The last error met while syncing, if any. */
  readonly lastError: string | undefined;
}

/**
 * Cache figures of an event source, for debug views (O(index values) to make).
 *
 * @example
 * ```ts
 * import type { EventSource, EventSourceStatistics } from '@kindex/core';
 * declare const source: EventSource;
 *
 * const figures: EventSourceStatistics | undefined = source.statistics?.();
 * console.log(figures?.objects, figures?.synced);
 * ```
 */
export interface EventSourceStatistics {
  readonly objects: number;
  readonly synced: boolean;
  /** Distinct values per index, by index name. */
  readonly indexes: Record<string, number>;
  /** The reverse primary-to-secondary index's size, when the source keeps one. */
  readonly reverseIndex?: { readonly primaries: number; readonly secondaries: number } | undefined;
}

/**
 * A read-only view of the secondary resources an event source holds.
 *
 * @example
 * ```ts
 * import type { KubernetesObject, SecondaryResourceReader } from '@kindex/core';
 * type Bucket = { readonly name: string; readonly sizeBytes: number };
 *
 * function totalSize(reader: SecondaryResourceReader<Bucket>, primary: KubernetesObject): number {
 *   return reader.getSecondaryResources(primary).reduce((sum, b) => sum + b.sizeBytes, 0);
 * }
 * ```
 */
export interface SecondaryResourceReader<R, P extends KubernetesObject = KubernetesObject> {
  /** The secondary resources of `primary` as the source holds them, read without I/O; frozen, do not change them. */
  getSecondaryResources(primary: P): readonly R[];
  /**
   * Ends a snapshot reader's view and frees what it kept (see `IndexedStore.snapshot`); the
   * Context calls it when the reconcile ends. Absent on readers that read live.
   */
  release?(): void;
}

/**
 * The state of an event source, as `health$` reports it.
 *
 * @example
 * ```ts
 * import type { EventSource, EventSourceHealth } from '@kindex/core';
 * declare const source: EventSource;
 *
 * source.health$.subscribe((health: EventSourceHealth) => {
 *   if (health.status === 'unhealthy') console.warn(`${health.source} is unhealthy`, health.error);
 * });
 * ```
 */
export interface EventSourceHealth {
  /** Name of the source. */
  readonly source: string;
  /**
   * `starting` until the first `start()` completes; `healthy` while it works; `unhealthy` after a
   * failure it keeps retrying (see `error`); `stopped` after `stop()`.
   */
  readonly status: 'starting' | 'healthy' | 'unhealthy' | 'stopped';
  /** The last failure, while unhealthy. */
  readonly error?: unknown;
}
