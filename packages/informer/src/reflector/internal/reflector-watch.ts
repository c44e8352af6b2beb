/**
 * The watch phase of a reflector: one watch request, read to its end, and what each of its events
 * does to the reflector's state. `ADDED`, `MODIFIED` and `DELETED` are checked, prepared and
 * written to the view (or, during a watch-list, held aside until its end bookmark); `BOOKMARK`
 * moves the resourceVersion the next watch resumes from; `ERROR` ends the watch (a 410 with an
 * outcome that reads the state again, anything else as a failure).
 *
 * A {@link ReflectorWatch} is the codec's {@link WatchFrameSink} itself: the decoder calls its
 * `frame` with each decoded event, and the decoder's `push` is the response's data listener, so a
 * watch event goes from the socket's data to the view with no forwarding call between.
 *
 * @module
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kindex/core';
import { framePrefix, type WatchFrameSink } from '../../client/codec.js';
import { openRequest, watchError, type OpenRequest } from '../../client/kube-request.js';
import { WatchLineError } from '../../client/response-errors.js';
import { InitialEvents, isInitialEventsEnd, WATCH_LIST_QUERY, WatchListIgnoredError } from './initial-events.js';
import { prepareObject, type PrepareContext, type PreparedObject } from './prepare-object.js';
import type { ReconnectDelays } from './reconnect-delays.js';
import type { ReflectorState } from './reflector-state.js';
import type { ReflectorStatus } from './reflector-status.js';
import { inShard, type ReflectorTarget } from './reflector-target.js';

/** A watch that delivers nothing and ends sooner than this is a failure, not a timeout. */
const MIN_HEALTHY_WATCH_MS = 1000;

/** How a watch ended without failing: by 410 Gone (read the state again), or normally. */
export interface WatchOutcome {
  readonly expired: boolean;
  /** False for a watch that ended at once with nothing delivered: the next one waits a backoff step. */
  readonly healthy: boolean;
}

/** What each watch of a reflector needs from it, built once in its constructor. */
export interface WatchContext<R extends KubernetesObject> {
  readonly kubeConfig: KubeConfig;
  readonly target: ReflectorTarget;
  /** The server's timeout for one watch; undefined picks 5 to 10 minutes at random, per watch. */
  readonly timeoutSeconds: number | undefined;
  readonly inactivityMs: number;
  /** The reflector's stop signal: aborts the request, and drops what arrives after it. */
  readonly signal: AbortSignal;
  readonly prepare: PrepareContext<R>;
  readonly state: ReflectorState<R>;
  readonly status: ReflectorStatus;
  readonly delays: ReconnectDelays;
}

/**
 * One watch request, read to its end; resolves on a normal end or 410, rejects on failure. With
 * `streaming`, a watch-list: from the newest state (no resourceVersion, as client-go after a
 * 410), its events held aside until the end bookmark; else from the state's resourceVersion.
 */
export async function watchOnce<R extends KubernetesObject>(ctx: WatchContext<R>, streaming: boolean): Promise<WatchOutcome> {
  const timeoutSeconds = ctx.timeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
  const open = await openRequest(ctx.kubeConfig, {
    path: ctx.target.path,
    query: {
      watch: 'true',
      ...(streaming ? WATCH_LIST_QUERY : { resourceVersion: ctx.state.resourceVersion }),
      allowWatchBookmarks: 'true',
      timeoutSeconds: String(timeoutSeconds),
      ...ctx.target.selectors,
    },
    shape: 'watch',
    codec: ctx.target.codec,
    inactivityMs: ctx.inactivityMs,
    signal: ctx.signal,
  });
  ctx.status.update({ watching: true });
  return new ReflectorWatch(ctx, open, streaming).read();
}

/** One open watch response and the frames decoded from it. */
class ReflectorWatch<R extends KubernetesObject> implements WatchFrameSink {
  readonly #ctx: WatchContext<R>;
  readonly #open: OpenRequest;
  /** The objects of a watch-list until its end bookmark; undefined outside one. */
  #initial: InitialEvents<R> | undefined;
  /** Events and bad frames so far: a watch that delivered any was healthy, however short. */
  #delivered = 0;
  #settled = false;
  #resolve: (outcome: WatchOutcome) => void = () => {};
  #reject: (error: Error) => void = () => {};

  constructor(ctx: WatchContext<R>, open: OpenRequest, streaming: boolean) {
    this.#ctx = ctx;
    this.#open = open;
    this.#initial = streaming ? new InitialEvents<R>() : undefined;
  }

  /** Reads the response to its end. */
  read(): Promise<WatchOutcome> {
    const open = this.#open;
    const { response } = open;
    const started = Date.now();
    return new Promise<WatchOutcome>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
      // One data listener, the decoder's push itself (no frame of its own on each watch event's
      // way), which feeds the watchdog first: with two listeners Node copies the listener array
      // on every chunk.
      const decoder = open.codec.watchDecoder(this, open.touch);
      response.on('data', decoder.push.bind(decoder));
      response.once('end', () => {
        decoder.flush();
        this.#finish({ expired: false, healthy: this.#delivered > 0 || Date.now() - started >= MIN_HEALTHY_WATCH_MS });
      });
      response.once('error', (error) => this.#finish(open.failure() ?? error));
      response.once('close', () => {
        if (!response.complete) this.#finish(open.failure() ?? new Error(`${open.description}: connection closed mid-stream`));
      });
    });
  }

  /**
   * One decoded watch event, applied to the reflector's state. Bad events and objects are reported
   * and skipped so the stream goes on; an ERROR event, or a server that ignored watch-list, ends it.
   * The decoder calls it and it calls the view, both directly: the one reflector frame on the way
   * of every watch event.
   */
  frame(type: unknown, object: unknown, frame: string | Uint8Array): void {
    const ctx = this.#ctx;
    // A consumer may call stop() from a delta handler: the rest of the chunk is dropped.
    if (this.#settled || ctx.signal.aborted) return;
    const { state } = ctx;
    switch (type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED': {
        state.received++;
        const { shards } = ctx.target;
        if (shards !== undefined && !inShard(shards, object)) {
          // Outside the range (a server without the gate sends it anyway): only its version counts.
          this.#skipped(object);
          break;
        }
        let prepared: PreparedObject<R>;
        try {
          prepared = prepareObject(object, ctx.prepare);
        } catch (error) {
          ctx.status.report(error as Error);
          this.#skipped(object);
          break;
        }
        if (this.#initial !== undefined) {
          // Streamed objects come in no resourceVersion order: the end bookmark sets the version.
          this.#initial.apply(type, prepared);
          break;
        }
        state.resourceVersion = prepared.resourceVersion;
        if (type === 'DELETED') state.view.delete(prepared);
        else state.view.upsert(prepared);
        break;
      }
      case 'BOOKMARK': {
        const rv = (object as KubernetesObject | null | undefined)?.metadata?.resourceVersion;
        if (typeof rv !== 'string' || rv === '') {
          ctx.status.report(new WatchLineError(framePrefix(frame), 'BOOKMARK without metadata.resourceVersion'));
          break;
        }
        const initial = this.#initial;
        if (initial === undefined) {
          state.resourceVersion = rv;
          ctx.status.update({ lastSyncResourceVersion: rv });
          break;
        }
        // kube-apiserver holds back bookmarks until the initial events are sent, so a plain one
        // now means the server took the request for a plain watch.
        if (!isInitialEventsEnd(object)) {
          this.#finish(new WatchListIgnoredError(this.#open.description));
          return;
        }
        this.#initial = undefined;
        state.applyInitialState(initial.items(), rv, 'watch-list', false);
        break;
      }
      case 'ERROR': {
        const error = watchError(this.#open, object);
        this.#finish(error.expired ? { expired: true, healthy: true } : error);
        return;
      }
      default:
        ctx.status.report(new WatchLineError(framePrefix(frame), `unknown event type ${JSON.stringify(type)}`));
    }
    this.#delivered++;
    ctx.delays.delivered();
  }

  /** A frame the codec could not decode: reported, and the stream goes on. */
  malformed(error: WatchLineError): void {
    if (this.#settled || this.#ctx.signal.aborted) return;
    this.#ctx.status.report(error);
    // A bad line counts as delivered, as it did before the codec seam: watch health is unchanged.
    this.#delivered++;
    this.#ctx.delays.delivered();
  }

  /** A watch event that is not applied: outside a watch-list, its version still counts. */
  #skipped(object: unknown): void {
    const rv = (object as KubernetesObject | null | undefined)?.metadata?.resourceVersion;
    if (this.#initial === undefined && typeof rv === 'string' && rv !== '') this.#ctx.state.resourceVersion = rv;
  }

  /** Ends the watch once: closes the request, then resolves with the outcome or rejects with the error. */
  #finish(result: WatchOutcome | Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#open.close();
    this.#ctx.status.update({ watching: false });
    if (result instanceof Error) this.#reject(result);
    else this.#resolve(result);
  }
}
