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
 *
 * The class composes the phases, each in a file of `internal/`: the paged list (`paged-list.ts`),
 * one watch and what each of its events does (`reflector-watch.ts`), the objects a watch-list holds
 * until its end bookmark (`initial-events.ts`), the view and resourceVersion both write
 * (`reflector-state.ts`), health and errors (`reflector-status.ts`), and the waits between reads
 * (`reconnect-delays.ts`); its own loop decides which phase runs next.
 */
import type { Observable } from 'rxjs';
import { ShardSelector, type IndexedStore, type KubernetesObject, type StoreDelta } from '@kindex/core';
import { KubeApiError } from '../client/kube-api-error.js';
import { apiVersionOf } from '../kind/resource-type.js';
import { refusesWatchList, WatchListIgnoredError } from './internal/initial-events.js';
import { MetadataInterning } from './internal/metadata-interning.js';
import { listPages, type PagedListContext } from './internal/paged-list.js';
import type { PrepareContext } from './internal/prepare-object.js';
import { ReconnectDelays } from './internal/reconnect-delays.js';
import { ReflectorState } from './internal/reflector-state.js';
import { ReflectorStatus } from './internal/reflector-status.js';
import { inShard, reflectorTarget, type ReflectorTarget } from './internal/reflector-target.js';
import { ReflectorView } from './internal/reflector-view.js';
import { watchOnce, type WatchContext } from './internal/reflector-watch.js';
import { sleep, waitForHealth } from './internal/wait-for-health.js';
import { keepAppliedFields } from './object-transform.js';
import type { ReflectorHealth } from './reflector-health.js';
import {
  initialStateOf,
  REFLECTOR_OPTIONS,
  WAIT_FOR_SYNC_OPTIONS,
  type InitialState,
  type ReflectorOptions,
  type WaitForSyncOptions,
} from './reflector-options.js';

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

  private readonly target: ReflectorTarget;
  private readonly initialState: InitialState;
  /** Set once an `auto` reflector found the server without watch-list: lists from then on. */
  private watchListRefused = false;
  /** Aborted by `stop()`: the open request, a pending retry and every later report end with it. */
  private readonly abort = new AbortController();
  private readonly delays: ReconnectDelays;
  private readonly status: ReflectorStatus;
  private readonly state: ReflectorState<R>;
  /** What each paged list of the initial state is read with (the list phase). */
  private readonly listing: PagedListContext<R>;
  /** What each watch request is opened and applied with (the watch phase, watch-list included). */
  private readonly watching: WatchContext<R>;
  private loop: Promise<void> | undefined;

  constructor(options: ReflectorOptions<R>) {
    REFLECTOR_OPTIONS.check(options);
    const { type, kubeConfig } = options;
    const { signal } = this.abort;
    const target = reflectorTarget(options);
    this.target = target;
    this.initialState = initialStateOf(options);
    this.delays = new ReconnectDelays(options.backoff);
    this.status = new ReflectorStatus(options.cluster, signal);
    const view = new ReflectorView<R>(options.store, options.sink);
    this.state = new ReflectorState(view, this.status, target.shards !== undefined, signal);
    const report = (error: Error): void => this.status.report(error);
    const prepare: PrepareContext<R> = {
      kind: type.kind,
      apiVersion: apiVersionOf(type),
      namespaced: type.namespaced,
      transform: options.transform === null ? (o) => o : (options.transform ?? keepAppliedFields),
      onTransformError: report,
      interning: new MetadataInterning(),
    };
    const inactivityMs = options.inactivityTimeoutMs ?? 150_000;
    const { shards } = target;
    this.listing = {
      kubeConfig,
      path: target.path,
      selectors: target.selectors,
      pageSize: options.pageSize ?? 500,
      codec: target.codec,
      inactivityMs,
      signal,
      prepare,
      inShard: shards === undefined ? undefined : (raw) => inShard(shards, raw),
      onReceived: (count) => (this.state.received += count),
      report,
    };
    this.watching = {
      kubeConfig,
      target,
      timeoutSeconds: options.watchTimeoutSeconds,
      inactivityMs,
      signal,
      prepare,
      state: this.state,
      status: this.status,
      delays: this.delays,
    };
    this.deltas$ = view.deltas.observe((delta) => delta);
    this.health$ = this.status.health$;
    this.errors$ = this.status.errors$;
  }

  /** Starts listing and watching; resolves once the loop runs (not once synced: see {@link waitForSync}). */
  async start(): Promise<void> {
    if (this.abort.signal.aborted) throw new Error('a stopped Reflector cannot be started again; create a new one');
    this.loop ??= this.run();
  }

  /** Aborts the open request and any pending retry, then completes the observables. Quiet and idempotent. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    this.status.update({ watching: false });
    this.state.view.deltas.complete();
    this.status.complete();
  }

  /** True once the first initial state (list or watch-list) has been delivered on `deltas$`. */
  hasSynced(): boolean {
    return this.status.health.synced;
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
    return this.status.health;
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
    return this.state.received;
  }

  /** The resourceVersion of the last event, bookmark or list seen. */
  get resourceVersion(): string | undefined {
    return this.state.resourceVersion;
  }

  /** The object held under a key (`namespace/name` or `name`). */
  get(key: string): R | undefined {
    return this.state.view.store.get(key);
  }

  /** Every object held: the state the deltas have described so far. */
  list(): R[] {
    return this.state.view.store.list();
  }

  /**
   * The objects held, indexed: read it, add indexers to it, snapshot it; never write it (the
   * reflector is its only writer, and diffs every list and watch event against it).
   */
  get store(): IndexedStore<R> {
    return this.state.view.store;
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
    return this.state.view.deltas.add(listener);
  }

  /**
   * The reflector's loop until `stop()`: the initial state (paged list, or watch-list streamed by
   * the watch itself), then watches from the last resourceVersion; after a 410, the initial state
   * again; after a failure, reported, the same step again, after the wait {@link ReconnectDelays}
   * gives.
   */
  private async run(): Promise<void> {
    const { signal } = this.abort;
    let needState = true;
    let restarting = false;
    while (!signal.aborted) {
      let delayMs = 0;
      const states = this.health.lists;
      const streaming = needState && this.streamsInitialState();
      try {
        if (restarting) this.status.update({ restarts: this.health.restarts + 1 });
        restarting = false;
        if (needState && !streaming) await this.listAll();
        const outcome = await watchOnce(this.watching, streaming);
        if (this.health.lists !== states) needState = false;
        if (outcome.expired) {
          needState = true;
          restarting = true;
          delayMs = this.delays.afterExpired();
        } else if (needState) {
          // A watch-list that ended before its end bookmark: stream it again, never a partial view.
          restarting = true;
          delayMs = this.delays.afterUnhealthyWatch();
        } else if (!outcome.healthy) {
          delayMs = this.delays.afterUnhealthyWatch();
        }
      } catch (error) {
        if (signal.aborted) break;
        if (this.health.lists !== states) needState = false;
        this.status.update({ watching: false });
        const err = error instanceof Error ? error : new Error(String(error));
        if (streaming && needState && this.initialState === 'auto' && (refusesWatchList(err) || err instanceof WatchListIgnoredError)) {
          // Not a fault: this server has no watch-list. Lists from now on, at once and quietly
          // (waitForSync's rejectOn must not see a 422 that a list would not get).
          this.watchListRefused = true;
          continue;
        }
        this.status.report(err);
        restarting = true;
        if (err instanceof KubeApiError && err.expired) {
          needState = true;
          delayMs = this.delays.afterExpired();
        } else {
          delayMs = this.delays.afterFailure(err);
        }
      }
      if (delayMs > 0 && !signal.aborted) await sleep(delayMs, signal);
    }
  }

  /** Whether the next initial state is streamed by watch-list rather than listed. */
  private streamsInitialState(): boolean {
    return this.initialState === 'auto' ? !this.watchListRefused && this.target.shards === undefined : this.initialState === 'watch-list';
  }

  /** Lists every page, then replaces the view in one go and emits the differences. */
  private async listAll(): Promise<void> {
    const list = await listPages(this.listing);
    this.state.applyInitialState(list.items, list.resourceVersion, 'list', list.sharded);
  }
}
