// Open watches and event delivery. Each store event is filtered per watcher exactly as the
// apiserver's cacher does: an object that starts matching a watcher's selectors arrives as ADDED,
// one that stops matching as DELETED (its previous state at the event's resourceVersion). Each
// event line is serialized once and shared by every watcher that receives it.

import type { ServerResponse } from 'node:http';
import type { LabelSelector, ShardSelector } from '@kindex/core';
import type { FieldSelector } from '@kindex/core/internal';
import { fieldValue } from '../storage/field-selectors.js';
import { objectJson, type Json, type ObjectStore, type StoreEvent, type StoredObject } from '../storage/object-store.js';
import type { ResourceType } from '../storage/resource-registry.js';
import { ApiStatusError, type StatusObject } from '../storage/status-error.js';

/** What one watch asks for. */
export interface WatchSpec {
  readonly type: ResourceType;
  readonly version: string;
  readonly namespace: string | undefined;
  readonly labels: LabelSelector;
  readonly fields: FieldSelector;
  /** Only objects whose shard hash falls in these ranges (`shardSelector`). Defaults to all. */
  readonly shards?: ShardSelector | undefined;
  readonly bookmarks: boolean;
  readonly timeoutMs: number | undefined;
  /**
   * Watch-list streaming (`sendInitialEvents=true`): ADDED for every current object whatever the
   * resourceVersion, then a BOOKMARK annotated `k8s.io/initial-events-end`.
   */
  readonly sendInitialEvents?: boolean;
  /** Rewrites each event line before it is written (server-side printing). Defaults to none. */
  readonly transform?: (line: string) => string | Uint8Array;
  /**
   * Rewrites each event line asynchronously (a CRD's conversion webhook); lines keep their order,
   * and a failure ends the watch with an ERROR event. Defaults to none.
   */
  readonly convertLater?: (line: string) => Promise<string>;
}

/** Options of {@link WatchHub}. */
export interface WatchHubOptions {
  /**
   * Interval of BOOKMARK events for watches that allow them, counted per watch from its start.
   * Defaults to 60000, kube-apiserver's watch cache bookmark frequency.
   */
  bookmarkIntervalMs?: number;
}

// kube-apiserver's cacher sends a watch its last bookmark this long before the watch's deadline
// (cacheWatcher.nextBookmarkTime in k8s.io/apiserver pkg/storage/cacher), so that a client
// resuming after the timeout starts from a recent resourceVersion.
const PRE_TIMEOUT_BOOKMARK_MS = 2000;

/**
 * When a watch's next bookmark is due, or undefined for none: `intervalMs` from now, or
 * {@link PRE_TIMEOUT_BOOKMARK_MS} before its deadline when that comes first, and none once that
 * moment has passed. The real cacher fires within a second of it (one-second buckets); here on time.
 */
export function nextBookmarkAt(now: number, intervalMs: number, deadline: number | undefined): number | undefined {
  const heartbeat = now + intervalMs;
  if (deadline === undefined) return heartbeat;
  const preTimeout = deadline - PRE_TIMEOUT_BOOKMARK_MS;
  if (preTimeout >= heartbeat) return heartbeat;
  // At the pre-timeout moment itself (a timer fires on the millisecond it was set for) that bookmark
  // is the one just sent: none again, as the real cacher, whose clock has moved on by then.
  return preTimeout <= now ? undefined : preTimeout;
}

/** Whether an object passes a watch's namespace, label and field filters. */
export function matchesSpec(spec: Pick<WatchSpec, 'type' | 'namespace' | 'labels' | 'fields' | 'shards'>, obj: Readonly<Json>): boolean {
  const meta = obj['metadata'] as Json;
  if (spec.namespace !== undefined && meta['namespace'] !== spec.namespace) return false;
  if (!spec.labels.isEmpty() && !spec.labels.matches(meta['labels'] as Record<string, string> | undefined)) return false;
  if (!spec.fields.isEmpty() && !spec.fields.matches((f) => fieldValue(spec.type, obj, f))) return false;
  if (spec.shards !== undefined && !spec.shards.matches(obj)) return false;
  return true;
}

const MAX_BUFFERED_BYTES = 256 * 1024 * 1024;

class Watcher {
  private timer: NodeJS.Timeout | undefined;
  /** The pending bookmark of a watch that allows them. */
  bookmarkTimer: NodeJS.Timeout | undefined;
  /** When the watch times out (Date.now() based), if it does. */
  readonly deadline: number | undefined;
  closed = false;
  sentUpTo = 0;
  // The lines being converted, in order (convertLater).
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly spec: WatchSpec,
    readonly res: ServerResponse,
    private readonly onClose: (w: Watcher) => void,
  ) {
    res.on('close', () => this.close());
    this.deadline = spec.timeoutMs === undefined ? undefined : Date.now() + spec.timeoutMs;
    if (spec.timeoutMs !== undefined) {
      this.timer = setTimeout(() => this.close(), spec.timeoutMs);
      this.timer.unref();
    }
  }

  write(line: string): void {
    if (this.closed) return;
    if (this.spec.convertLater !== undefined) return this.writeLater(this.spec.convertLater, line);
    this.res.write(this.spec.transform === undefined ? line : this.spec.transform(line));
    // Like the apiserver's cacher, a watcher that cannot keep up is dropped (it relists and
    // rewatches) rather than buffering without bound.
    if (this.res.writableLength > MAX_BUFFERED_BYTES) this.close();
  }

  private writeLater(convert: (line: string) => Promise<string>, line: string): void {
    this.queue = this.queue
      .then(() => convert(line))
      .then(
        (converted) => {
          if (!this.closed) this.res.write(this.spec.transform === undefined ? converted : this.spec.transform(converted));
        },
        (e: unknown) => {
          if (this.closed) return;
          const status = e instanceof ApiStatusError ? e : new ApiStatusError(500, 'InternalError', String(e));
          this.res.write(errorEventLine(status.toStatus()));
          this.close();
        },
      );
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.bookmarkTimer !== undefined) clearTimeout(this.bookmarkTimer);
    this.onClose(this);
    if (!this.res.writableEnded) this.res.end();
  }
}

// Serialized lines of one event, memoized by event type and apiVersion.
class EventLines {
  private readonly cache = new Map<string, string>();

  constructor(private readonly event: StoreEvent) {}

  line(type: 'ADDED' | 'MODIFIED' | 'DELETED', fromPrevious: boolean, t: ResourceType, apiVersion: string): string {
    const memoKey = `${type}|${fromPrevious ? 'p' : 'o'}|${apiVersion}`;
    let line = this.cache.get(memoKey);
    if (line === undefined) {
      const stored = fromPrevious ? stampedPrevious(this.event) : this.event.object;
      line = `{"type":"${type}","object":${objectJson(stored, t.kind, apiVersion)}}\n`;
      this.cache.set(memoKey, line);
    }
    return line;
  }
}

function stampedPrevious(e: StoreEvent): StoredObject {
  const prev = e.previous!;
  const obj = JSON.parse(prev.body) as Json;
  (obj['metadata'] as Json)['resourceVersion'] = String(e.rv);
  return { obj: prev.obj, body: JSON.stringify(obj), rv: e.rv, key: prev.key };
}

/** The set of open watches of one server. */
export class WatchHub {
  private readonly byType = new Map<string, Set<Watcher>>();
  private paused = false;
  private readonly held: StoreEvent[] = [];
  private readonly bookmarkIntervalMs: number;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: ObjectStore,
    options: WatchHubOptions = {},
  ) {
    this.unsubscribe = store.subscribe((e) => {
      if (this.paused) this.held.push(e);
      else this.deliver(e);
    });
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
  }

  /** How many watches are open. */
  get size(): number {
    let n = 0;
    for (const s of this.byType.values()) n += s.size;
    return n;
  }

  /**
   * Starts a watch on an HTTP response: headers now, then initial events (synthetic ADDED for a
   * watch without a resourceVersion, or the history after it), then live events.
   * @throws {ApiStatusError} 410 when `fromRv` is older than the retained history; the caller
   * sends it as an ERROR event.
   */
  open(spec: WatchSpec, res: ServerResponse, fromRv: number | undefined): void {
    // Resolve history first so that a 410 can still be reported by the caller.
    const backlog = fromRv === undefined || spec.sendInitialEvents === true ? undefined : this.store.eventsSince(fromRv);
    const watcher = new Watcher(spec, res, (w) => this.byType.get(spec.type.id)?.delete(w));
    const apiVersion = apiVersionOf(spec.type, spec.version);
    if (backlog === undefined) {
      for (const o of this.store.list(spec.type.id, spec.namespace)) {
        if (matchesSpec(spec, o.obj)) watcher.write(`{"type":"ADDED","object":${objectJson(o, spec.type.kind, apiVersion)}}\n`);
      }
    } else {
      for (const e of backlog) if (e.typeId === spec.type.id) this.deliverTo(watcher, e, new EventLines(e));
    }
    // kube-apiserver marks the end of the initial events only for watches that allow bookmarks.
    if (spec.sendInitialEvents === true && spec.bookmarks) {
      watcher.write(this.bookmarkLine(spec, { 'k8s.io/initial-events-end': 'true' }));
    }
    // The initial events cover everything up to now, including events held by pauseEvents():
    // those must not reach this watch a second time on resume.
    watcher.sentUpTo = this.store.resourceVersion;
    let set = this.byType.get(spec.type.id);
    if (set === undefined) {
      set = new Set();
      this.byType.set(spec.type.id, set);
    }
    if (!watcher.closed) {
      set.add(watcher);
      if (spec.bookmarks) this.scheduleBookmark(watcher);
    }
  }

  // Each watch has its own bookmark schedule, as in the cacher: a heartbeat every interval from its
  // start, and one shortly before its timeout.
  private scheduleBookmark(w: Watcher, firedAt?: number): void {
    // A timer may fire a millisecond early by Date.now(): count from the moment it was due.
    const now = Math.max(Date.now(), firedAt ?? 0);
    const at = nextBookmarkAt(now, this.bookmarkIntervalMs, w.deadline);
    if (at === undefined) return;
    w.bookmarkTimer = setTimeout(() => {
      w.bookmarkTimer = undefined;
      if (w.closed) return;
      // A bookmark promises that every event up to its resourceVersion was sent: not while paused.
      if (!this.paused) w.write(this.bookmarkLine(w.spec));
      this.scheduleBookmark(w, at);
    }, at - now);
    w.bookmarkTimer.unref();
  }

  /** Ends every open watch. */
  closeAll(): void {
    for (const set of [...this.byType.values()]) for (const w of [...set]) w.close();
  }

  /** Ends the watches of one type (its CRD was deleted). */
  closeType(typeId: string): void {
    for (const w of [...(this.byType.get(typeId) ?? [])]) w.close();
  }

  /** Holds events back until {@link resume}. */
  pause(): void {
    this.paused = true;
  }

  /** Delivers held events in order, then delivers live again. */
  resume(): void {
    this.paused = false;
    for (const e of this.held.splice(0)) this.deliver(e);
  }

  /** Stops timers and ends every watch. */
  dispose(): void {
    this.unsubscribe();
    this.closeAll();
  }

  private deliver(e: StoreEvent): void {
    const set = this.byType.get(e.typeId);
    if (set === undefined || set.size === 0) return;
    const lines = new EventLines(e);
    for (const w of set) this.deliverTo(w, e, lines);
  }

  private deliverTo(w: Watcher, e: StoreEvent, lines: EventLines): void {
    const spec = w.spec;
    if (e.rv <= w.sentUpTo) return;
    if (spec.namespace !== undefined && e.namespace !== spec.namespace) return;
    const apiVersion = apiVersionOf(spec.type, spec.version);
    const nowPasses = e.type !== 'DELETED' && matchesSpec(spec, e.object.obj);
    const beforePasses = e.previous !== undefined && matchesSpec(spec, e.previous.obj);
    if (nowPasses && beforePasses) w.write(lines.line('MODIFIED', false, spec.type, apiVersion));
    else if (nowPasses) w.write(lines.line('ADDED', false, spec.type, apiVersion));
    else if (beforePasses) w.write(lines.line('DELETED', true, spec.type, apiVersion));
  }

  private bookmarkLine(spec: WatchSpec, annotations?: Record<string, string>, rv = String(this.store.resourceVersion)): string {
    const metadata = annotations === undefined ? { resourceVersion: rv } : { resourceVersion: rv, annotations };
    const object = { kind: spec.type.kind, apiVersion: apiVersionOf(spec.type, spec.version), metadata };
    return `{"type":"BOOKMARK","object":${JSON.stringify(object)}}\n`;
  }
}

/** `group/version`, or `version` for the core group. */
export function apiVersionOf(type: ResourceType, version: string): string {
  return type.group === '' ? version : `${type.group}/${version}`;
}

/** The line of a watch ERROR event carrying a Status. */
export function errorEventLine(status: StatusObject): string {
  return `{"type":"ERROR","object":${JSON.stringify(status)}}\n`;
}
