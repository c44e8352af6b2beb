/**
 * The reflector stage: keeps an indexed store of one resource type in step with the API server
 * and tells its consumer every change, as `StoreDelta`s (the event path's one delta type).
 *
 * It reads the initial state by watch-list (one watch that streams every object, then an end
 * bookmark, and goes on as the watch) or by paginated lists then a watch from the list's
 * resourceVersion (see {@link InitialState}), with bookmarks and a server timeout, behind a
 * client-side inactivity watchdog. A 410 reads the state again and emits only the real
 * differences; other failures reconnect with jittered exponential backoff (429 waits for
 * Retry-After). It never stops on its own: `stop()` is the only way out, and it is quiet.
 *
 * One store mode: the reflector writes its own {@link IndexedStore}, which is its diff base and
 * its output at once (a watch event costs one lookup, a list one batch), then calls its `sink`
 * and its `onDelta` listeners (`deltas$` is derived from them). Choose {@link Reflector} directly to
 * read one type (its `store`) or follow its changes; most operators use it through the shared
 * informer, which adds sharing, and the InformerEventSource, which maps changes to reconciles.
 */
import { BehaviorSubject, Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import type { KubeConfig } from '@kubernetes/client-node';
import { ShardSelector, type IndexedStore, type KubernetesObject, type StoreDelta } from '@kindex/core';
import { Backoff, retryDelayMs } from './internal/backoff.js';
import { openRequest, watchError } from '../client/kube-request.js';
import type { OpenRequest } from '../client/kube-request.js';
import { framePrefix } from '../client/codec.js';
import { KubeApiError } from '../client/kube-api-error.js';
import { WatchLineError } from '../client/response-errors.js';
import { prepareObject } from './internal/prepare-object.js';
import { MetadataInterning } from './internal/metadata-interning.js';
import type { PrepareContext, PreparedObject } from './internal/prepare-object.js';
import { listPages, type PagedListContext } from './internal/paged-list.js';
import { InitialEvents, isInitialEventsEnd, refusesWatchList, WATCH_LIST_QUERY, WatchListIgnoredError } from './internal/initial-events.js';
import { keepAppliedFields } from './object-transform.js';
import type { ReflectorHealth } from './reflector-health.js';
import { ReflectorView } from './internal/reflector-view.js';
import { sleep, waitForHealth } from './internal/wait-for-health.js';
import { apiVersionOf } from '../kind/resource-type.js';
import { reflectorTarget, type ReflectorTarget } from './internal/reflector-target.js';
import {
  initialStateOf,
  REFLECTOR_OPTIONS,
  WAIT_FOR_SYNC_OPTIONS,
  type InitialState,
  type ReflectorOptions,
  type WaitForSyncOptions,
} from './reflector-options.js';

/** A watch that delivers nothing and ends sooner than this is a failure, not a timeout. */
const MIN_HEALTHY_WATCH_MS = 1000;

type WatchOutcome = { readonly expired: boolean; readonly healthy: boolean };

/**
 * Lists and watches one resource type into its {@link IndexedStore} (`store`) and reports each
 * change as a {@link StoreDelta}, the one delta type of the event path, from the reflector to the
 * handlers.
 *
 * Contract: the deltas applied in order to an empty store yield exactly the reflector's view
 * (`store`, `list()`), which converges to the server's state after every fault. The initial state,
 * listed or streamed by watch-list, is delivered in one batch once complete (a watch-list's
 * objects are held aside until its end bookmark), so `synced` means the view is whole. An object whose
 * resourceVersion did not change never produces a delta, even across a relist or a watch restart;
 * one deleted and created again under the same name while the reflector was not looking (a new
 * `metadata.uid`) arrives as `delete` (`deleteStateUnknown`) then `create`, never as an `update`.
 * A delete found by a relist carries the last state held, with `deleteStateUnknown: true`.
 * Objects are the server's plain JSON (list items get the `kind`/`apiVersion` watch objects
 * carry), transformed, then deeply frozen. Errors are reported on `errors$` and `health$`, never
 * thrown out of the loop.
 *
 * Caveats: `onDelta` listeners and `deltas$` subscribers run synchronously, after the store shows
 * the change; add them before `start()`, and do not throw from them (rxjs would rethrow a
 * subscriber's error asynchronously as an uncaught exception). Nothing but the reflector may
 * write `store`.
 *
 * @example
 * ```ts
 * import { Reflector } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 * const reflector = new Reflector({ kubeConfig, type: { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true } });
 * reflector.onDelta((d) => console.log(d.type, d.object.metadata?.name));
 * await reflector.start();
 * await reflector.waitForSync({ timeoutMs: 30_000 });
 * // ...
 * await reflector.stop();
 * ```
 */
export class Reflector<R extends KubernetesObject = KubernetesObject> {
  /**
   * Every change, in order: the diff after each read of the initial state (list or watch-list),
   * then each watch event. Derived from
   * the listeners of {@link onDelta}: it costs nothing while nobody subscribes.
   */
  readonly deltas$: Observable<StoreDelta<R>>;
  /** Current health, replayed to each new subscriber; completes on `stop()`. */
  readonly health$: Observable<ReflectorHealth>;
  /** Every problem met, as it happens (request failures, bad lines, invalid objects). */
  readonly errors$: Observable<Error>;

  private readonly kubeConfig: KubeConfig;
  private readonly cluster: string | undefined;
  private readonly target: ReflectorTarget;
  private received = 0;
  private readonly listContext: PagedListContext<R>;
  private readonly initialState: InitialState;
  /** Set once an `auto` reflector found the server without watch-list: lists from then on. */
  private watchListRefused = false;
  /** The objects of a watch-list until its end bookmark; undefined outside one. */
  private initial: InitialEvents<R> | undefined;
  private readonly watchTimeoutSeconds: number | undefined;
  private readonly inactivityMs: number;
  private readonly backoff: Backoff;
  private readonly prepare: PrepareContext<R>;
  private readonly view: ReflectorView<R>;
  private readonly healthSubject: BehaviorSubject<ReflectorHealth>;
  private readonly errorSubject = new Subject<Error>();
  private readonly abort = new AbortController();
  private rv: string | undefined;
  private loop: Promise<void> | undefined;
  private stopped = false;
  private expiredInARow = 0;

  constructor(options: ReflectorOptions<R>) {
    REFLECTOR_OPTIONS.check(options);
    const { type } = options;
    this.kubeConfig = options.kubeConfig;
    this.cluster = options.cluster;
    this.target = reflectorTarget(options);
    this.initialState = initialStateOf(options);
    this.watchTimeoutSeconds = options.watchTimeoutSeconds;
    this.inactivityMs = options.inactivityTimeoutMs ?? 150_000;
    this.backoff = new Backoff(options.backoff);
    this.view = new ReflectorView<R>(options.store, options.sink);
    this.prepare = {
      kind: type.kind,
      apiVersion: apiVersionOf(type),
      namespaced: type.namespaced,
      transform: options.transform === null ? (o) => o : (options.transform ?? keepAppliedFields),
      onTransformError: (error) => this.report(error),
      interning: new MetadataInterning(),
    };
    this.listContext = {
      kubeConfig: this.kubeConfig,
      path: this.target.path,
      selectors: this.target.selectors,
      pageSize: options.pageSize ?? 500,
      codec: this.target.codec,
      inactivityMs: this.inactivityMs,
      signal: this.abort.signal,
      prepare: this.prepare,
      inShard: this.target.shards === undefined ? undefined : (raw) => this.inShard(raw),
      onReceived: (count) => (this.received += count),
      report: (error) => this.report(error),
    };
    this.healthSubject = new BehaviorSubject<ReflectorHealth>(
      Object.freeze({ synced: false, watching: false, lastSyncResourceVersion: undefined, lastError: undefined, restarts: 0, lists: 0 }),
    );
    this.deltas$ = this.view.deltas.observe((delta) => delta);
    this.health$ = this.healthSubject.asObservable();
    this.errors$ = this.errorSubject.asObservable();
  }

  /** Starts listing and watching; resolves once the loop runs (not once synced: see {@link waitForSync}). */
  async start(): Promise<void> {
    if (this.stopped) throw new Error('a stopped Reflector cannot be started again; create a new one');
    this.loop ??= this.run();
  }

  /** Aborts the open request and any pending retry, then completes the observables. Quiet and idempotent. */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.abort.abort();
    }
    await this.loop;
    if (!this.healthSubject.closed) {
      this.update({ watching: false });
      this.view.deltas.complete();
      this.errorSubject.complete();
      this.healthSubject.complete();
    }
  }

  /** True once the first initial state (list or watch-list) has been delivered on `deltas$`. */
  hasSynced(): boolean {
    return this.healthSubject.value.synced;
  }

  /**
   * Resolves `true` once synced, or `false` on timeout, abort or stop; rejects with the error
   * met before syncing when `rejectOn` accepts it.
   */
  async waitForSync(options: WaitForSyncOptions = {}): Promise<boolean> {
    WAIT_FOR_SYNC_OPTIONS.check(options);
    if (this.hasSynced()) return true;
    return waitForHealth(this.health$, options);
  }

  /** The current health. */
  get health(): ReflectorHealth {
    return this.healthSubject.value;
  }

  /** The shard selector applied, if any. */
  get shardSelector(): ShardSelector | undefined {
    return this.target.shards;
  }

  /**
   * Objects received from the server so far, list items and watch events, counted before the
   * client-side shard filter: what sharding on the server saves shows here.
   */
  get objectsReceived(): number {
    return this.received;
  }

  /** The resourceVersion of the last event, bookmark or list seen. */
  get resourceVersion(): string | undefined {
    return this.rv;
  }

  /** The object held under a key (`namespace/name` or `name`). */
  get(key: string): R | undefined {
    return this.view.store.get(key);
  }

  /** Every object held: the state the deltas have described so far. */
  list(): R[] {
    return this.view.store.list();
  }

  /**
   * The objects held, indexed: read it, add indexers to it, snapshot it; never write it (the
   * reflector is its only writer, and diffs every list and watch event against it).
   */
  get store(): IndexedStore<R> {
    return this.view.store;
  }

  /**
   * Calls `listener` with every change, after the store shows it, as `deltas$` does but as a plain
   * call, with no wrapper object (the per-event path of the shared informer). `listing` is true for
   * the changes of an initial state, listed or streamed by watch-list (the first, or again after
   * 410 Gone), delivered in one synchronous run.
   * @returns the function that removes the listener.
   * @example
   * ```ts
   * import type { Reflector } from '@kindex/informer';
   * declare const reflector: Reflector;
   *
   * const stop = reflector.onDelta((delta, listing) => console.log(delta.type, delta.object.metadata?.name, listing ? 'listed' : 'watched'));
   * stop();
   * ```
   */
  onDelta(listener: (delta: StoreDelta<R>, listing: boolean) => void): () => void {
    return this.view.deltas.add(listener);
  }

  private async run(): Promise<void> {
    let needState = true;
    let restarting = false;
    while (!this.stopped) {
      let delayMs = 0;
      const states = this.health.lists;
      const streaming = needState && this.streamsInitialState();
      try {
        if (restarting) this.update({ restarts: this.health.restarts + 1 });
        restarting = false;
        if (needState && !streaming) await this.listAll();
        const outcome = await this.watchOnce(streaming);
        if (this.health.lists !== states) needState = false;
        if (outcome.expired) {
          needState = true;
          restarting = true;
          if (++this.expiredInARow > 1) delayMs = this.backoff.next();
        } else if (needState) {
          // A watch-list that ended before its end bookmark: stream it again, never a partial view.
          restarting = true;
          delayMs = this.backoff.next();
        } else if (!outcome.healthy) {
          delayMs = this.backoff.next();
        }
      } catch (error) {
        if (this.stopped) break;
        if (this.health.lists !== states) needState = false;
        this.update({ watching: false });
        const err = error instanceof Error ? error : new Error(String(error));
        if (streaming && needState && this.initialState === 'auto' && (refusesWatchList(err) || err instanceof WatchListIgnoredError)) {
          // Not a fault: this server has no watch-list. Lists from now on, at once and quietly
          // (waitForSync's rejectOn must not see a 422 that a list would not get).
          this.watchListRefused = true;
          continue;
        }
        this.report(err);
        restarting = true;
        if (err instanceof KubeApiError && err.expired) {
          needState = true;
          if (++this.expiredInARow > 1) delayMs = this.backoff.next();
        } else {
          delayMs = retryDelayMs(err, this.backoff);
        }
      }
      if (delayMs > 0 && !this.stopped) await sleep(delayMs, this.abort.signal);
    }
  }

  private streamsInitialState(): boolean {
    return this.initialState === 'auto' ? !this.watchListRefused && this.target.shards === undefined : this.initialState === 'watch-list';
  }

  /** Lists every page, then replaces the view in one go and emits the differences. */
  private async listAll(): Promise<void> {
    const list = await listPages(this.listContext);
    this.applyInitialState(list.items, list.resourceVersion, 'list', list.sharded);
  }

  /** Replaces the view with a complete initial state and emits the differences. */
  private applyInitialState(items: readonly R[], resourceVersion: string, by: 'list' | 'watch-list', serverSharded: boolean): void {
    if (this.stopped) return;
    this.view.replace(items, resourceVersion);
    this.rv = resourceVersion;
    this.update({
      synced: true,
      lists: this.health.lists + 1,
      lastSyncResourceVersion: resourceVersion,
      lastSyncBy: by,
      // Only a list body carries shardInfo; a watch-list cannot tell, so it leaves the field as it was.
      ...(this.target.shards === undefined || by === 'watch-list'
        ? {}
        : { shardFilter: serverSharded ? ('server' as const) : ('client' as const) }),
    });
  }

  // The object's own field, read off the wire before any transform could drop it.
  private inShard(raw: unknown): boolean {
    return raw !== null && typeof raw === 'object' && this.target.shards!.matches(raw);
  }

  /**
   * One watch request, read to its end; resolves on a normal end or 410, rejects on failure. With
   * `streaming`, a watch-list: from the newest state (no resourceVersion, as client-go after a
   * 410), its events held in {@link initial} until the end bookmark.
   */
  private async watchOnce(streaming: boolean): Promise<WatchOutcome> {
    const timeoutSeconds = this.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
    this.initial = streaming ? new InitialEvents<R>() : undefined;
    const open = await openRequest(this.kubeConfig, {
      path: this.target.path,
      query: {
        watch: 'true',
        ...(streaming ? WATCH_LIST_QUERY : { resourceVersion: this.rv }),
        allowWatchBookmarks: 'true',
        timeoutSeconds: String(timeoutSeconds),
        ...this.target.selectors,
      },
      shape: 'watch',
      codec: this.target.codec,
      inactivityMs: this.inactivityMs,
      signal: this.abort.signal,
    });
    this.update({ watching: true });
    const started = Date.now();
    let delivered = 0;
    return new Promise<WatchOutcome>((resolve, reject) => {
      let settled = false;
      const finish = (settle: () => void): void => {
        if (settled) return;
        settled = true;
        open.close();
        this.update({ watching: false });
        settle();
      };
      const splitter = open.codec.watchDecoder({
        frame: (type, object, frame) => {
          // A consumer may call stop() from a delta handler: the rest of the chunk is dropped.
          if (settled || this.stopped) return;
          const stop = this.handleFrame(type, object, frame, open);
          if (stop === undefined) {
            delivered++;
            this.expiredInARow = 0;
          } else if (stop instanceof KubeApiError && stop.expired) {
            finish(() => resolve({ expired: true, healthy: true }));
          } else {
            finish(() => reject(stop));
          }
        },
        malformed: (error) => {
          if (settled || this.stopped) return;
          this.report(error);
          // A bad line counted as delivered before the codec seam; kept so watch health is unchanged.
          delivered++;
          this.expiredInARow = 0;
        },
      });
      const { response } = open;
      response.on('data', (chunk: Buffer) => {
        open.touch();
        splitter.push(chunk);
      });
      response.once('end', () => {
        splitter.flush();
        const healthy = delivered > 0 || Date.now() - started >= MIN_HEALTHY_WATCH_MS;
        finish(() => resolve({ expired: false, healthy }));
      });
      response.once('error', (error) => finish(() => reject(open.failure() ?? error)));
      response.once('close', () => {
        if (!response.complete) {
          finish(() => reject(open.failure() ?? new Error(`${open.description}: connection closed mid-stream`)));
        }
      });
    });
  }

  /**
   * Applies one decoded watch event. Returns the error that must end the stream (an ERROR event, a
   * server that ignored watch-list), otherwise undefined (bad events and objects are reported and
   * skipped so the stream goes on).
   */
  private handleFrame(type: unknown, object: unknown, frame: string | Uint8Array, open: OpenRequest): Error | undefined {
    switch (type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED': {
        this.received++;
        if (this.target.shards !== undefined && !this.inShard(object)) {
          // Outside the range (a server without the gate sends it anyway): only its version counts.
          this.skipped(object);
          return undefined;
        }
        let prepared: PreparedObject<R>;
        try {
          prepared = prepareObject(object, this.prepare);
        } catch (error) {
          this.report(error as Error);
          this.skipped(object);
          return undefined;
        }
        if (this.initial !== undefined) {
          // Streamed objects come in no resourceVersion order: the end bookmark sets the version.
          this.initial.apply(type, prepared);
          return undefined;
        }
        this.rv = prepared.resourceVersion;
        if (type === 'DELETED') this.view.delete(prepared);
        else this.view.upsert(prepared);
        return undefined;
      }
      case 'BOOKMARK': {
        const rv = (object as KubernetesObject | null | undefined)?.metadata?.resourceVersion;
        if (typeof rv === 'string' && rv !== '') {
          const initial = this.initial;
          if (initial !== undefined) {
            // kube-apiserver holds back bookmarks until the initial events are sent, so a plain one
            // now means the server took the request for a plain watch.
            if (!isInitialEventsEnd(object)) return new WatchListIgnoredError(open.description);
            this.initial = undefined;
            this.applyInitialState(initial.items(), rv, 'watch-list', false);
            return undefined;
          }
          this.rv = rv;
          this.update({ lastSyncResourceVersion: rv });
        } else {
          this.report(new WatchLineError(framePrefix(frame), 'BOOKMARK without metadata.resourceVersion'));
        }
        return undefined;
      }
      case 'ERROR': {
        return watchError(open, object);
      }
      default:
        this.report(new WatchLineError(framePrefix(frame), `unknown event type ${JSON.stringify(type)}`));
        return undefined;
    }
  }

  /** A watch event that is not applied: outside a watch-list, its version still counts. */
  private skipped(object: unknown): void {
    const rv = (object as KubernetesObject | null | undefined)?.metadata?.resourceVersion;
    if (this.initial === undefined && typeof rv === 'string' && rv !== '') this.rv = rv;
  }

  private report(error: Error): void {
    if (this.stopped) return;
    const message = this.cluster === undefined ? error.message : `cluster ${this.cluster}: ${error.message}`;
    this.update({ lastError: Object.freeze({ message, at: Date.now(), error }) });
    this.errorSubject.next(error);
  }

  private update(change: Partial<ReflectorHealth>): void {
    const current = this.healthSubject.value;
    let changed = false;
    for (const k of Object.keys(change) as Array<keyof ReflectorHealth>) {
      if (current[k] !== change[k]) changed = true;
    }
    if (changed && !this.healthSubject.closed) this.healthSubject.next(Object.freeze({ ...current, ...change }));
  }
}
