/**
 * The reflector stage: keeps a view of one resource type in step with the API server and tells
 * its consumer every change, as deltas.
 *
 * It lists (paginated), then watches from the list's resourceVersion with bookmarks and a server
 * timeout, behind a client-side inactivity watchdog. A 410 relists and emits only the real
 * differences; other failures reconnect with jittered exponential backoff (429 waits for
 * Retry-After). It never stops on its own: `stop()` is the only way out, and it is quiet.
 *
 * Choose {@link Reflector} directly to feed your own store from `deltas$`; most operators use it
 * through the InformerEventSource, which drives the indexed store and the event pipeline.
 */
import { BehaviorSubject, Subject } from 'rxjs';
import type { Observable, Subscription } from 'rxjs';
import type { KubeConfig } from '@kubernetes/client-node';
import { rejectUnknownOptions, ShardSelector, type KubernetesObject, type OptionKeysOf } from '@kindex/core';
import { Backoff, BACKOFF_OPTION_KEYS } from './internal/backoff.js';
import type { BackoffOptions } from './internal/backoff.js';
import { KnownObjects } from './internal/known-objects.js';
import { decodeBody, openRequest, sendRequest, watchError } from '../client/kube-request.js';
import type { OpenRequest } from '../client/kube-request.js';
import { framePrefix } from '../client/codec.js';
import { KubeApiError } from '../client/kube-api-error.js';
import { WatchLineError } from '../client/response-errors.js';
import { prepareObject } from './internal/prepare-object.js';
import type { PrepareContext, PreparedObject } from './internal/prepare-object.js';
import { keepAppliedFields } from './object-transform.js';
import type { ObjectTransform } from './object-transform.js';
import type { ReflectorDelta } from './reflector-delta.js';
import type { ReflectorHealth } from './reflector-health.js';
import type { ReflectorStore } from './reflector-store.js';
import type { ReflectorFill } from './reflector-fill.js';
import { StoreBackedView } from './internal/store-backed-view.js';
import { apiVersionOf, collectionPath } from '../kind/resource-type.js';
import type { ResourceType } from '../kind/resource-type.js';

export type { BackoffOptions } from './internal/backoff.js';

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
  /** Objects per list page (`limit`). Defaults to 500. */
  readonly pageSize?: number;
  /**
   * Server-side timeout of each watch; the reflector then re-watches from its resourceVersion
   * without relisting. Defaults to a random 300-600 s per watch, as client-go, so that many
   * clients do not reconnect together.
   */
  readonly watchTimeoutSeconds?: number;
  /**
   * Longest silence tolerated on an open request before it is treated as a dead (half-open)
   * connection and replaced. Must exceed the server's bookmark period (about 60 s on
   * kube-apiserver). Defaults to 150 000 ms.
   */
  readonly inactivityTimeoutMs?: number;
  /** Reconnect backoff. Defaults to 800 ms doubling to 30 s, jitter 1, reset after 2 min. */
  readonly backoff?: BackoffOptions;
  /**
   * Reshapes each object before it is cached; `null` keeps objects exactly as sent.
   * Defaults to {@link keepAppliedFields}.
   */
  readonly transform?: ObjectTransform<R> | null;
  /**
   * The consumer's store, to diff against instead of a map of the reflector's own; the
   * consumer must apply every delta to it synchronously (see {@link ReflectorStore}).
   * Defaults to the reflector's own map.
   */
  readonly knownObjects?: ReflectorStore<R>;
  /**
   * A store the reflector fills itself, with callbacks for its changes (see {@link ReflectorFill}):
   * the cheapest wiring, one lookup per event and one batch per list. Excludes `knownObjects`.
   * Defaults to none (deltas on `deltas$` only).
   */
  readonly fill?: ReflectorFill<R>;
}

/** The keys of {@link ReflectorOptions}, `backoff`'s own included: unknown ones are rejected, not ignored. */
const REFLECTOR_OPTION_KEYS = {
  kubeConfig: true,
  type: true,
  namespace: true,
  labelSelector: true,
  fieldSelector: true,
  shardSelector: true,
  pageSize: true,
  watchTimeoutSeconds: true,
  inactivityTimeoutMs: true,
  backoff: BACKOFF_OPTION_KEYS,
  transform: true,
  knownObjects: true,
  fill: true,
} as const satisfies OptionKeysOf<ReflectorOptions>;

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

/** The keys of {@link WaitForSyncOptions}: unknown ones are rejected, not ignored. */
const WAIT_FOR_SYNC_OPTION_KEYS = { timeoutMs: true, signal: true, rejectOn: true } as const satisfies OptionKeysOf<WaitForSyncOptions>;

/** A watch that delivers nothing and ends sooner than this is a failure, not a timeout. */
const MIN_HEALTHY_WATCH_MS = 1000;

type WatchOutcome = { readonly expired: boolean; readonly healthy: boolean };

/**
 * Lists and watches one resource type and emits each change as a {@link ReflectorDelta}.
 *
 * Contract: `deltas$` applied in order to an empty store yields exactly the reflector's view
 * (`list()`), which converges to the server's state after every fault. Objects are the server's
 * plain JSON (list items get the `kind`/`apiVersion` watch objects carry), transformed, then
 * deeply frozen. Errors are reported on `errors$` and `health$`, never thrown out of the loop.
 *
 * Caveats: `deltas$` is hot and synchronous; subscribe before `start()`, and do not throw from
 * a subscriber (rxjs would rethrow it asynchronously as an uncaught exception).
 *
 * @example
 * ```ts
 * import { Reflector } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 * const reflector = new Reflector({ kubeConfig, type: { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true } });
 * reflector.deltas$.subscribe((d) => console.log(d.type, d.key));
 * await reflector.start();
 * await reflector.waitForSync({ timeoutMs: 30_000 });
 * // ...
 * await reflector.stop();
 * ```
 */
export class Reflector<R extends KubernetesObject = KubernetesObject> {
  /** Every change, in order: the relist diff after each list, then each watch event. */
  readonly deltas$: Observable<ReflectorDelta<R>>;
  /** Current health, replayed to each new subscriber; completes on `stop()`. */
  readonly health$: Observable<ReflectorHealth>;
  /** Every problem met, as it happens (request failures, bad lines, invalid objects). */
  readonly errors$: Observable<Error>;

  private readonly kubeConfig: KubeConfig;
  private readonly path: string;
  private readonly selectors: { labelSelector: string | undefined; fieldSelector: string | undefined; shardSelector: string | undefined };
  private readonly shards: ShardSelector | undefined;
  private received = 0;
  private readonly pageSize: number;
  private readonly watchTimeoutSeconds: number | undefined;
  private readonly inactivityMs: number;
  private readonly backoff: Backoff;
  private readonly prepare: PrepareContext<R>;
  private readonly known: KnownObjects<R> | StoreBackedView<R>;
  private readonly deltaSubject = new Subject<ReflectorDelta<R>>();
  private readonly healthSubject: BehaviorSubject<ReflectorHealth>;
  private readonly errorSubject = new Subject<Error>();
  private readonly emit = (delta: ReflectorDelta<R>): void => this.deltaSubject.next(delta);
  private readonly abort = new AbortController();
  private rv: string | undefined;
  private loop: Promise<void> | undefined;
  private stopped = false;
  private expiredInARow = 0;

  constructor(options: ReflectorOptions<R>) {
    rejectUnknownOptions('Reflector options', options, REFLECTOR_OPTION_KEYS);
    const { type } = options;
    if (options.namespace !== undefined && options.namespace !== '' && !type.namespaced) {
      throw new TypeError(`${type.kind} is cluster-scoped; it cannot be watched in namespace ${options.namespace}`);
    }
    this.kubeConfig = options.kubeConfig;
    if (options.fill !== undefined && options.knownObjects !== undefined) {
      throw new TypeError('Reflector: give either fill or knownObjects, not both (fill is its own diff base)');
    }
    this.known = options.fill !== undefined ? new StoreBackedView<R>(options.fill) : new KnownObjects<R>(options.knownObjects);
    this.path = collectionPath(type, options.namespace);
    // Parsed once here: a bad selector is a configuration error, not a 400 to retry forever.
    this.shards =
      options.shardSelector === undefined || options.shardSelector === ''
        ? undefined
        : typeof options.shardSelector === 'string'
          ? ShardSelector.parse(options.shardSelector)
          : options.shardSelector;
    this.selectors = {
      labelSelector: options.labelSelector || undefined,
      fieldSelector: options.fieldSelector || undefined,
      shardSelector: this.shards?.toString(),
    };
    this.pageSize = options.pageSize ?? 500;
    this.watchTimeoutSeconds = options.watchTimeoutSeconds;
    this.inactivityMs = options.inactivityTimeoutMs ?? 150_000;
    this.backoff = new Backoff(options.backoff);
    this.prepare = {
      kind: type.kind,
      apiVersion: apiVersionOf(type),
      namespaced: type.namespaced,
      transform: options.transform === null ? (o) => o : (options.transform ?? keepAppliedFields),
      onTransformError: (error) => this.report(error),
    };
    this.healthSubject = new BehaviorSubject<ReflectorHealth>(
      Object.freeze({ synced: false, watching: false, lastSyncResourceVersion: undefined, lastError: undefined, restarts: 0, lists: 0 }),
    );
    this.deltas$ = this.deltaSubject.asObservable();
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
    if (!this.deltaSubject.closed) {
      this.update({ watching: false });
      this.deltaSubject.complete();
      this.errorSubject.complete();
      this.healthSubject.complete();
    }
  }

  /** True once the first list has been delivered on `deltas$`. */
  hasSynced(): boolean {
    return this.healthSubject.value.synced;
  }

  /**
   * Resolves `true` once synced, or `false` on timeout, abort or stop; rejects with the error
   * met before syncing when `rejectOn` accepts it.
   */
  async waitForSync(options: WaitForSyncOptions = {}): Promise<boolean> {
    rejectUnknownOptions('Reflector.waitForSync options', options, WAIT_FOR_SYNC_OPTION_KEYS);
    if (this.hasSynced()) return true;
    const { signal, timeoutMs, rejectOn } = options;
    if (signal?.aborted) return false;
    return new Promise<boolean>((resolve, reject) => {
      let done = false;
      let subscription: Subscription | undefined;
      let timeout: NodeJS.Timeout | undefined;
      const finish = (synced: boolean | Error): void => {
        if (done) return;
        done = true;
        if (timeout !== undefined) clearTimeout(timeout);
        signal?.removeEventListener('abort', onAbort);
        subscription?.unsubscribe();
        if (synced instanceof Error) reject(synced);
        else resolve(synced);
      };
      const onAbort = (): void => finish(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) timeout = setTimeout(() => finish(false), timeoutMs);
      // health$ replays synchronously (and completes at once if stopped), hence the `done` flag.
      subscription = this.health$.subscribe({
        next: (h) => {
          if (h.synced) finish(true);
          else if (rejectOn !== undefined && h.lastError !== undefined && rejectOn(h.lastError.error)) finish(h.lastError.error);
        },
        complete: () => finish(false),
      });
      if (done) subscription.unsubscribe();
    });
  }

  /** The current health. */
  get health(): ReflectorHealth {
    return this.healthSubject.value;
  }

  /** The shard selector applied, if any. */
  get shardSelector(): ShardSelector | undefined {
    return this.shards;
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
    return this.known.get(key);
  }

  /** Every object held: the state `deltas$` has described so far. */
  list(): R[] {
    return this.known.list();
  }

  private async run(): Promise<void> {
    let needList = true;
    let restarting = false;
    while (!this.stopped) {
      let delayMs = 0;
      try {
        if (restarting) this.update({ restarts: this.health.restarts + 1 });
        restarting = false;
        if (needList) {
          await this.listAll();
          needList = false;
        }
        const outcome = await this.watchOnce();
        if (outcome.expired) {
          needList = true;
          restarting = true;
          if (++this.expiredInARow > 1) delayMs = this.backoff.next();
        } else if (!outcome.healthy) {
          delayMs = this.backoff.next();
        }
      } catch (error) {
        if (this.stopped) break;
        this.update({ watching: false });
        const err = error instanceof Error ? error : new Error(String(error));
        this.report(err);
        restarting = true;
        if (err instanceof KubeApiError && err.expired) {
          needList = true;
          if (++this.expiredInARow > 1) delayMs = this.backoff.next();
        } else if (err instanceof KubeApiError && err.status === 429 && (err.retryAfterSeconds ?? 0) > 0) {
          // Honour the server's own estimate; a missing or zero Retry-After falls back to the
          // backoff so a server that keeps answering 429 is never hammered in a tight loop.
          delayMs = (err.retryAfterSeconds ?? 0) * 1000;
        } else {
          delayMs = this.backoff.next();
        }
      }
      if (delayMs > 0 && !this.stopped) await this.sleep(delayMs);
    }
  }

  /** Lists every page, then replaces the view in one go and emits the differences. */
  private async listAll(): Promise<void> {
    const items: PreparedObject<R>[] = [];
    let continueToken: string | undefined;
    let limit: string | undefined = String(this.pageSize);
    let resourceVersion: string;
    let serverSharded = true;
    for (;;) {
      let page: { items: unknown[]; resourceVersion: string; continueToken: string | undefined; sharded: boolean };
      try {
        page = await this.getList({ limit, continue: continueToken, ...this.selectors });
      } catch (error) {
        if (continueToken === undefined || !(error instanceof KubeApiError && error.expired)) throw error;
        // The snapshot behind the continue token is gone: start again with one unpaginated list,
        // which cannot expire halfway (client-go's pager does the same).
        this.report(error);
        items.length = 0;
        continueToken = undefined;
        limit = undefined;
        continue;
      }
      this.received += page.items.length;
      serverSharded &&= page.sharded;
      for (const raw of page.items) {
        // Always checked, not only without shardInfo: cheap, and the view never depends on trusting the server.
        if (this.shards !== undefined && !this.inShard(raw)) continue;
        try {
          items.push(prepareObject(raw, this.prepare));
        } catch (error) {
          this.report(error as Error);
        }
      }
      resourceVersion = page.resourceVersion;
      continueToken = page.continueToken;
      if (continueToken === undefined) break;
    }
    if (this.stopped) return;
    if (this.known instanceof StoreBackedView) this.known.replace(items, resourceVersion, this.listening());
    else this.known.replace(items, this.emit);
    this.rv = resourceVersion;
    this.update({
      synced: true,
      lists: this.health.lists + 1,
      lastSyncResourceVersion: resourceVersion,
      ...(this.shards === undefined ? {} : { shardFilter: serverSharded ? ('server' as const) : ('client' as const) }),
    });
  }

  private async getList(
    query: Record<string, string | undefined>,
  ): Promise<{ items: unknown[]; resourceVersion: string; continueToken: string | undefined; sharded: boolean }> {
    const { open, body: bytes } = await sendRequest(this.kubeConfig, {
      path: this.path,
      query,
      shape: 'list',
      inactivityMs: this.inactivityMs,
      signal: this.abort.signal,
    });
    const body = decodeBody(open, bytes, 'list') as {
      items?: unknown;
      metadata?: { resourceVersion?: unknown; continue?: unknown; shardInfo?: unknown };
    } | null;
    const rv = body?.metadata?.resourceVersion;
    if (!Array.isArray(body?.items) || typeof rv !== 'string' || rv === '') {
      throw new Error(`${open.description}: not a list (items or metadata.resourceVersion missing)`);
    }
    const cont = body.metadata?.continue;
    return {
      items: body.items,
      resourceVersion: rv,
      continueToken: typeof cont === 'string' && cont !== '' ? cont : undefined,
      sharded: body.metadata?.shardInfo !== undefined && body.metadata.shardInfo !== null,
    };
  }

  // The object's own field, read off the wire before any transform could drop it.
  private inShard(raw: unknown): boolean {
    return raw !== null && typeof raw === 'object' && this.shards!.matches(raw);
  }

  /** One watch request, read to its end; resolves on a normal end or 410, rejects on failure. */
  private async watchOnce(): Promise<WatchOutcome> {
    const timeoutSeconds = this.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
    const open = await openRequest(this.kubeConfig, {
      path: this.path,
      query: {
        watch: 'true',
        resourceVersion: this.rv,
        allowWatchBookmarks: 'true',
        timeoutSeconds: String(timeoutSeconds),
        ...this.selectors,
      },
      shape: 'watch',
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
          } else if (stop.expired) {
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
   * Applies one decoded watch event. Returns the ERROR event's error when the stream must end,
   * otherwise undefined (bad events and objects are reported and skipped so the stream goes on).
   */
  private handleFrame(type: unknown, object: unknown, frame: string | Uint8Array, open: OpenRequest): KubeApiError | undefined {
    switch (type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED': {
        this.received++;
        if (this.shards !== undefined && !this.inShard(object)) {
          // Outside the range (a server without the gate sends it anyway): only its version counts.
          const rv = (object as KubernetesObject | null | undefined)?.metadata?.resourceVersion;
          if (typeof rv === 'string' && rv !== '') this.rv = rv;
          return undefined;
        }
        let prepared: PreparedObject<R>;
        try {
          prepared = prepareObject(object, this.prepare);
        } catch (error) {
          this.report(error as Error);
          const rv = (object as KubernetesObject | null | undefined)?.metadata?.resourceVersion;
          if (typeof rv === 'string' && rv !== '') this.rv = rv;
          return undefined;
        }
        this.rv = prepared.resourceVersion;
        const emit = this.listening();
        if (type === 'DELETED') this.known.delete(prepared, emit);
        else this.known.upsert(prepared, emit);
        return undefined;
      }
      case 'BOOKMARK': {
        const rv = (object as KubernetesObject | null | undefined)?.metadata?.resourceVersion;
        if (typeof rv === 'string' && rv !== '') {
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

  /**
   * Where deltas go: always `deltas$` for the reflector's own view; with a fill, only when someone
   * subscribed (the fill's callbacks are the main consumer, so the public shape is not built for nobody).
   */
  private listening(): ((delta: ReflectorDelta<R>) => void) | undefined {
    return this.known instanceof StoreBackedView && !this.deltaSubject.observed ? undefined : this.emit;
  }

  private report(error: Error): void {
    if (this.stopped) return;
    this.update({ lastError: Object.freeze({ message: error.message, at: Date.now(), error }) });
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

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(handle);
        this.abort.signal.removeEventListener('abort', done);
        resolve();
      };
      const handle = setTimeout(done, ms);
      this.abort.signal.addEventListener('abort', done, { once: true });
    });
  }
}
