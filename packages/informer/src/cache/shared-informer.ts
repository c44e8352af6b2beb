/**
 * The cache stage: a {@link Reflector} feeding an {@link IndexedStore}, shared by every event
 * source that needs the same objects.
 *
 * One {@link SharedInformer} exists per (cluster, kind, namespace, selectors, transform); the
 * {@link InformerRegistry} hands out reference-counted leases on it, so two sources on the same
 * ConfigMaps hold one copy of them and one watch. The store is the reflector's own; the informer is
 * its reflector's sink, and hands each change (a `StoreDelta`) on by a direct call to every
 * connected {@link SharedInformerSink} (the caches built on it), then to `onDelta` listeners and
 * the derived `deltas$`, only after the store (and its indexes) show it: a handler never reads a
 * cache that lags its own event.
 *
 * @module
 */
import { Subject, type Observable, type Subscription } from 'rxjs';
import { type IndexedStore, type Indexer, type KubernetesObject, type StoreDelta } from '@kindex/core';
import { Listeners, deepFreeze } from '@kindex/core/internal';
import { Reflector } from '../reflector/reflector.js';
import { type ReflectorOptions, type WaitForSyncOptions } from '../reflector/reflector-options.js';
import type { ReflectorHealth } from '../reflector/reflector-health.js';
import { keepAppliedFields } from '../reflector/object-transform.js';
import { KubeClient } from '../client/kube-client.js';
import { apiVersionOf } from '../kind/resource-type.js';
import { BoundedStore } from './bounded/bounded-store.js';
import type { CacheBound } from './bounded/cache-bound.js';
import type { InformerSpec } from './informer-spec.js';
import type { ReflectorSink } from '../reflector/reflector-sink.js';
import type { SharedInformerSink } from './shared-informer-sink.js';

/**
 * An indexer added under a name that another source of the same shared cache uses differently.
 *
 * @example
 * ```ts
 * import { ConflictingIndexerError, type SharedInformer } from '@kindex/informer';
 * declare const informer: SharedInformer;
 *
 * try {
 *   informer.ensureIndexer('byApp', (o) => [o.metadata?.labels?.['app'] ?? '']);
 * } catch (error) {
 *   // Another user of the shared informer registered a different function under this name: pick another name.
 *   if (error instanceof ConflictingIndexerError) informer.ensureIndexer('byApp.web-operator', (o) => [o.metadata?.labels?.['app'] ?? '']);
 * }
 * ```
 */
export class ConflictingIndexerError extends Error {
  override readonly name = 'ConflictingIndexerError';
  readonly code = 'KINDEX_CONFLICTING_INDEXER';
  constructor(
    readonly indexName: string,
    readonly informer: string,
  ) {
    super(`index ${JSON.stringify(indexName)} of the shared cache ${informer} already exists with another indexer function`);
  }
}

/**
 * What a shared informer has applied so far, for metrics and debugging.
 *
 * @example
 * ```ts
 * import type { SharedInformer, SharedInformerStats } from '@kindex/informer';
 * declare const informer: SharedInformer;
 *
 * const stats: SharedInformerStats = informer.stats;
 * const silentForMs = Date.now() - stats.lastHeardAt; // a long silence may mean a stuck watch
 * ```
 */
export interface SharedInformerStats {
  /** Store changes applied, by type (the initial list's objects count as added). */
  readonly added: number;
  readonly updated: number;
  readonly deleted: number;
  /** When the informer last heard from the server: a list, a watch event or a bookmark (epoch ms; 0: never). */
  readonly lastHeardAt: number;
}

/**
 * One list/watch and one indexed store, shared by reference count.
 *
 * @example
 * ```ts
 * import { InformerRegistry, Kinds, type SharedInformer } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const lease = new InformerRegistry().acquire({ kubeConfig, type: Kinds.ConfigMap, namespace: 'shop' });
 * const informer: SharedInformer = lease.informer;
 * informer.deltas$.subscribe((d) => console.log(d.type, d.object.metadata?.name));
 * await informer.start();
 * await informer.waitForSync({ timeoutMs: 30_000 });
 * ```
 */
export class SharedInformer<R extends KubernetesObject = KubernetesObject> implements ReflectorSink<R> {
  /** The registry key: which cluster, kind, namespace, selectors and transform it holds. */
  readonly key: string;
  /** What it lists and watches: kind, namespace and selectors (for metric labels and debugging). */
  readonly spec: ReflectorOptions<R>;
  readonly store: IndexedStore<R>;
  readonly reflector: Reflector<R>;
  /** Every change, after the store applied it. Hot and synchronous. */
  readonly deltas$: Observable<StoreDelta<R>>;
  /** Reflector and store problems (bad objects, request failures, throwing indexers). */
  readonly errors$: Observable<Error>;
  /** The caches built on this informer, called in a plain loop; copy on write, so a loop never sees a half-changed list. */
  #sinks: readonly SharedInformerSink<R>[] = [];
  readonly #deltas = new Listeners<StoreDelta<R>, boolean>();
  readonly #errors = new Subject<Error>();
  readonly #indexers = new Map<string, Indexer<R>>();
  readonly #subscriptions: Subscription[] = [];
  #started: Promise<void> | undefined;
  #stats = { added: 0, updated: 0, deleted: 0, lastHeardAt: 0 };
  #lastSyncResourceVersion: string | undefined;

  constructor(key: string, options: InformerSpec<R>) {
    const { bound, ...spec } = options;
    this.key = key;
    this.spec = spec;
    // The reflector's own store: its diff base and its output at once, so a watch event costs
    // one lookup of the old object and a list one store batch. This informer is its sink.
    this.reflector = new Reflector<R>({ ...spec, ...(bound === undefined ? {} : { store: boundedStore(spec, bound) }), sink: this });
    this.store = this.reflector.store;
    this.deltas$ = this.#deltas.observe((delta) => delta);
    this.errors$ = this.#errors.asObservable();
    this.#subscriptions.push(
      this.reflector.errors$.subscribe((error) => this.#errors.next(error)),
      this.store.errors$.subscribe((error) => this.#errors.next(error)),
      // A list or a bookmark moves lastSyncResourceVersion: the server was heard from.
      this.reflector.health$.subscribe((health) => {
        if (health.lastSyncResourceVersion !== this.#lastSyncResourceVersion) {
          this.#lastSyncResourceVersion = health.lastSyncResourceVersion;
          this.#stats.lastHeardAt = Date.now();
        }
      }),
    );
  }

  /** Counts of what the informer applied, and when it last heard from the server. */
  get stats(): SharedInformerStats {
    return { ...this.#stats };
  }

  /** Reflector health: synced, last resourceVersion, last error, restarts. */
  get health$(): Observable<ReflectorHealth> {
    return this.reflector.health$;
  }

  /**
   * Makes `sink` one more consumer of every change, called directly after the store applied it
   * and after the sinks connected before it (the per-event path of the caches built on this
   * informer). Returns the function that disconnects it.
   */
  connect(sink: SharedInformerSink<R>): () => void {
    this.#sinks = [...this.#sinks, sink];
    return () => {
      this.#sinks = this.#sinks.filter((s) => s !== sink);
    };
  }

  /**
   * Calls `listener` with every change, after the store applied it and after the connected sinks,
   * as `deltas$` does but as a plain call. `listing` is true for
   * the changes of a list (the first, or a relist after 410 Gone), delivered in one synchronous
   * run: a consumer can gather them and act once per list.
   * @returns the function that removes the listener.
   * @example
   * ```ts
   * import type { SharedInformer } from '@kindex/informer';
   * declare const informer: SharedInformer;
   *
   * const stop = informer.onDelta((delta, listing) => {
   *   if (!listing) console.log(delta.type, delta.object.metadata?.name);
   * });
   * stop();
   * ```
   */
  onDelta(listener: (delta: StoreDelta<R>, listing: boolean) => void): () => void {
    return this.#deltas.add(listener);
  }

  /** Starts the list/watch once, whoever asks first. */
  start(): Promise<void> {
    this.#started ??= this.reflector.start();
    return this.#started;
  }

  /** Whether the initial list is in the store, so reads answer for the whole collection and not a part of it. */
  hasSynced(): boolean {
    return this.reflector.hasSynced();
  }

  /** Resolves `true` once synced, `false` when the timeout or signal of `options` ends the wait first; rejects on an error `rejectOn` accepts. */
  waitForSync(options?: WaitForSyncOptions): Promise<boolean> {
    return this.reflector.waitForSync(options);
  }

  /**
   * Adds a named index, or accepts the same indexer again (two sources of one shared cache may
   * both declare it).
   * @throws {ConflictingIndexerError} when the name is taken by a different function.
   */
  ensureIndexer(name: string, indexer: Indexer<R>): void {
    const existing = this.#indexers.get(name);
    if (existing === indexer) return;
    if (existing !== undefined) throw new ConflictingIndexerError(name, this.key);
    this.store.addIndexer(name, indexer);
    this.#indexers.set(name, indexer);
  }

  /** Stops the watch and completes `deltas$` and `errors$`; normally the registry calls it when the last lease is released. */
  async stop(): Promise<void> {
    await this.reflector.stop();
    for (const s of this.#subscriptions) s.unsubscribe();
    this.#sinks = [];
    this.#deltas.complete();
    this.#errors.complete();
  }

  /**
   * @internal One change of the reflector's store ({@link ReflectorSink}): counted, then handed to
   * each sink in turn. A sink that throws is reported on `errors$` and never keeps the change from
   * the sinks after it. Called by the reflector only.
   */
  onReflectorDelta(delta: StoreDelta<R>, listing: boolean): void {
    this.#stats.lastHeardAt = Date.now();
    if (delta.type === 'create') this.#stats.added++;
    else if (delta.type === 'update') this.#stats.updated++;
    else this.#stats.deleted++;
    const sinks = this.#sinks;
    for (let i = 0; i < sinks.length; i++) {
      try {
        sinks[i]!.onInformerDelta(delta, listing);
      } catch (error) {
        this.#errors.next(error instanceof Error ? error : new Error(String(error)));
      }
    }
    if (this.#deltas.listening) this.#deltas.emit(delta, listing);
  }
}

/**
 * The store of a bounded informer: an evicted object is read back with a GET on the informer's
 * own KubeConfig, transformed and frozen as the reflector prepares what it caches.
 */
function boundedStore<R extends KubernetesObject>(spec: ReflectorOptions<R>, bound: CacheBound): BoundedStore<R> {
  const transform = spec.transform === null ? (o: R) => o : (spec.transform ?? keepAppliedFields);
  let client: KubeClient | undefined;
  return new BoundedStore<R>({
    bound,
    typeMeta: { apiVersion: apiVersionOf(spec.type), kind: spec.type.kind },
    fetch: async (id) => {
      client ??= new KubeClient(spec.kubeConfig);
      const found = await client.get<R>(spec.type, id);
      return found === undefined ? undefined : deepFreeze(transform(found));
    },
  });
}
