/**
 * Kubernetes Events written for reconcilers (client-go `tools/events`, kube-rs `events::Recorder`).
 *
 * One {@link EventBroadcaster} per Operator turns `context.getEventRecorder().record(...)` calls
 * into `events.k8s.io/v1` Events, through the operator's KubeClient like every other write:
 * - Series: repeats of one (controller, regarding, related, action, reason, type, note) within
 *   six minutes of the previous occurrence (client-go's `finishTime`) fold into the Event first
 *   created for them; their `series.count` and `series.lastObservedTime` are patched on a flush
 *   timer, one patch per series per interval, however many repeats came (client-go patches the
 *   second occurrence at once and then every 30 minutes; kube-rs patches every repeat).
 * - Rate limit: creating a new Event takes a token from a bucket per regarding object (burst 25,
 *   one token back every 5 minutes: client-go's `tools/record` spam filter). Repeats folded into
 *   a series take none, as they cost at most one patch per interval.
 * - Never blocking or failing a reconcile: `record` only updates memory and queues a write; one
 *   writer sends them in order. A full queue, a refused or failed write, or a stopped broadcaster
 *   drops the occurrences and counts them (`kindex_events_dropped_total{reason}`). A series patch
 *   answered 404 (the Event expired or was deleted) creates the Event again, as client-go does.
 *
 * Caveat: the primary's reference carries no resourceVersion, so repeats across reconciles of a
 * primary that changes still fold into one series (client-go's `GetReference` includes it, which
 * starts a new series at every write of the object).
 *
 * @module
 */
import { hostname } from 'node:os';
import type { Clock, EventObjectReference, EventRecord, EventRecorder, EventType, KubernetesObject, Logger } from '@kindex/core';
import { ResourceID, systemClock } from '@kindex/core';
import { defineOptions, noopLogger, qualifiedNameErrors } from '@kindex/core/internal';
import Type from 'typebox';
import { KubeApiError } from '../client/kube-api-error.js';
import type { KubeClient } from '../client/kube-client.js';
import { resourceKind, type ResourceKind } from '../kind/resource-kind.js';
import type { EventDropReason, EventMetrics } from './event-metrics.js';
import { EventRecordError } from './event-record-error.js';
import { microTime } from '../client/micro-time.js';

/**
 * Options of the operator's Event recorder (the `events` option of `Operator`).
 *
 * @example
 * ```ts
 * import { Operator, type EventRecorderOptions } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const events: EventRecorderOptions = { reportingInstance: 'web-operator-0', seriesFlushIntervalMs: 5_000 };
 * const operator = new Operator({ kubeConfig, events });
 * ```
 */
export interface EventRecorderOptions {
  /** `reportingInstance` of every Event. Defaults to the replica's identity (its leader-election or shard identity, else `POD_NAME` or the host name). */
  readonly reportingInstance?: string;
  /** How often repeats are written as series patches. Defaults to 10000 (10 s). */
  readonly seriesFlushIntervalMs?: number;
  /** New Events one regarding object may get at once. Defaults to 25 (client-go's spam filter burst). */
  readonly burstPerObject?: number;
  /** How long one token takes to come back. Defaults to 300000 (5 min, client-go's spam filter). */
  readonly refillIntervalMs?: number;
  /** Writes waiting for the API server at most; more are dropped (`queue_full`). Defaults to 1000 (client-go's maxQueuedEvents). */
  readonly maxQueuedWrites?: number;
  /** Time of eventTime, series windows and the rate limit (the flush timer runs on real time). Defaults to `systemClock`. */
  readonly clock?: Clock;
}

/** {@link EventRecorderOptions}' keys and value types (ranges are checked with the recorder's own error). */
export const EVENT_RECORDER_OPTIONS = defineOptions<EventRecorderOptions>('Operator options.events', {
  reportingInstance: Type.Optional(Type.String({ description: "a string of 1 to 128 characters (the replica's name)" })),
  seriesFlushIntervalMs: Type.Optional(Type.Number({ description: 'a positive number of milliseconds' })),
  burstPerObject: Type.Optional(Type.Number({ description: 'a positive number of Events' })),
  refillIntervalMs: Type.Optional(Type.Number({ description: 'a positive number of milliseconds' })),
  maxQueuedWrites: Type.Optional(Type.Number({ description: 'a positive number of writes' })),
  clock: Type.Optional(Type.Unknown()),
});

/** What the broadcaster takes besides {@link EventRecorderOptions}: given by the operator, not by users. */
const EVENT_BROADCASTER_OPTIONS = defineOptions<
  EventRecorderOptions & { readonly logger?: Logger; readonly defaultInstance?: () => string }
>('Operator options.events', {
  ...EVENT_RECORDER_OPTIONS.properties,
  logger: Type.Optional(Type.Unknown()),
  defaultInstance: Type.Optional(Type.Unknown()),
});

/** The `events.k8s.io/v1` Event kind the recorder writes. */
const EventsV1 = resourceKind({ group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', namespaced: true });

/** client-go's `finishTime`: a series ends six minutes after its last occurrence. */
const SERIES_WINDOW_MS = 6 * 60_000;
// The API server's limits on events.k8s.io/v1 (pkg/apis/core/validation/events.go).
const MAX_REASON_OR_ACTION = 128;
const MAX_NOTE_BYTES = 1024;
const MAX_INSTANCE = 128;

interface Series {
  readonly controller: string;
  readonly type: EventType;
  readonly body: KubernetesObject;
  readonly name: string;
  readonly namespace: string;
  readonly bucketKey: string;
  /** Occurrences recorded. */
  count: number;
  /** Occurrences the API server holds (or that were counted as dropped). */
  settled: number;
  lastObservedMs: number;
  lastObservedTime: string;
  /** Whether the Event exists on the server as far as we know. */
  created: boolean;
  /** A write of this series is queued or in flight. */
  pending: boolean;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * The operator's Event writer; reconcilers reach it through `context.getEventRecorder()`.
 *
 * @example
 * ```ts
 * import { EventBroadcaster, EventMetrics, KubeClient, Kinds } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * import { Registry } from 'prom-client';
 * declare const kubeConfig: KubeConfig;
 * declare const page: import('@kindex/core').KubernetesObject;
 *
 * // Outside an Operator (an Operator builds one for you).
 * const broadcaster = new EventBroadcaster(new KubeClient(kubeConfig), new EventMetrics(new Registry()), { reportingInstance: 'cli' });
 * broadcaster.recorderFor('webpages', Kinds.ConfigMap, page).record({ type: 'Normal', reason: 'Synced', action: 'Reconcile' });
 * await broadcaster.stop({ timeoutMs: 5_000 });
 * ```
 */
export class EventBroadcaster {
  readonly #client: KubeClient;
  readonly #metrics: EventMetrics;
  readonly #logger: Logger;
  readonly #reportingInstance: () => string;
  readonly #flushMs: number;
  readonly #burst: number;
  readonly #refillMs: number;
  readonly #maxQueued: number;
  readonly #clock: Clock;
  readonly #series = new Map<string, Series>();
  readonly #buckets = new Map<string, Bucket>();
  readonly #queue: { readonly op: 'create' | 'patch'; readonly series: Series }[] = [];
  readonly #checkedControllers = new Map<string, string | undefined>();
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;
  #stopped = false;
  #lastNanos = 0n;

  constructor(
    client: KubeClient,
    metrics: EventMetrics,
    options: EventRecorderOptions & { readonly logger?: Logger; readonly defaultInstance?: () => string } = {},
  ) {
    EVENT_BROADCASTER_OPTIONS.check(options);
    this.#client = client;
    this.#metrics = metrics;
    this.#logger = options.logger ?? noopLogger;
    const given = options.reportingInstance;
    this.#reportingInstance =
      given !== undefined ? () => given : (options.defaultInstance ?? (() => process.env['POD_NAME'] || hostname()));
    this.#flushMs = positive(options.seriesFlushIntervalMs, 10_000, 'seriesFlushIntervalMs');
    this.#burst = positive(options.burstPerObject, 25, 'burstPerObject');
    this.#refillMs = positive(options.refillIntervalMs, 300_000, 'refillIntervalMs');
    this.#maxQueued = positive(options.maxQueuedWrites, 1000, 'maxQueuedWrites');
    this.#clock = options.clock ?? systemClock;
    if (given !== undefined && (given === '' || given.length > MAX_INSTANCE)) {
      throw new EventRecordError(
        'reportingInstance',
        `is ${JSON.stringify(given)}`,
        `give 1 to ${MAX_INSTANCE} characters (the replica's name)`,
      );
    }
  }

  /**
   * The recorder a reconcile of `primary` gets: Events regard the primary unless the record names
   * another object, and carry the controller's name as `reportingController`.
   */
  recorderFor(controller: string, kind: ResourceKind, primary: KubernetesObject): EventRecorder {
    return { record: (event) => this.#record(controller, kind, primary, event) };
  }

  /** Queues the patch of every series with unwritten repeats and waits until the queue is empty. */
  async flush(): Promise<void> {
    this.#flushSeries(this.#clock.now());
    await this.#idle();
  }

  /**
   * Stops recording: later records are dropped (`stopped`), repeats not yet written are flushed,
   * and writes still queued after `timeoutMs` are dropped. Idempotent.
   */
  async stop(options: { timeoutMs?: number } = {}): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#stopped) return;
    this.#flushSeries(this.#clock.now());
    this.#stopped = true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, options.timeoutMs ?? 5_000)));
    // Repeats recorded while a series' create was in flight are not settled when it lands: flush
    // again after each round of writes until nothing is left to write.
    const drained = (async () => {
      while (this.#writing !== undefined) {
        await this.#idle();
        this.#flushSeries(this.#clock.now());
      }
    })();
    await Promise.race([drained, timedOut]);
    clearTimeout(timer);
    for (const { series } of this.#queue.splice(0)) this.#drop(series, 'stopped');
  }

  #record(controller: string, kind: ResourceKind, primary: KubernetesObject, record: EventRecord): void {
    checkRecord(record);
    const controllerProblem = this.#controllerProblem(controller);
    if (controllerProblem !== undefined) {
      throw new EventRecordError(
        'reportingController',
        `${JSON.stringify(controller)} ${controllerProblem}`,
        'name the controller with a qualified name (the `name` option of the controller, e.g. "webpage-controller")',
      );
    }
    if (this.#stopped) {
      this.#metrics.dropped(controller, 'stopped', 1);
      return;
    }
    const now = this.#clock.now();
    const regarding = compact(record.regarding ?? referenceOf(kind, primary));
    const related = record.related === undefined ? undefined : compact(record.related);
    const note = record.note === undefined ? undefined : truncateBytes(record.note, MAX_NOTE_BYTES);
    const key = JSON.stringify([controller, regarding, related ?? null, record.action, record.reason, record.type, note ?? null]);
    const existing = this.#series.get(key);
    if (existing !== undefined && now - existing.lastObservedMs < SERIES_WINDOW_MS) {
      existing.count++;
      existing.lastObservedMs = now;
      existing.lastObservedTime = microTime(now);
      this.#startTimer();
      return;
    }
    if (existing !== undefined) this.#retire(key, existing);
    const bucketKey = JSON.stringify([controller, regarding.namespace ?? '', regarding.uid ?? regarding.name ?? '']);
    if (!this.#take(bucketKey, now)) {
      this.#metrics.dropped(controller, 'rate_limited', 1);
      return;
    }
    const namespace = regarding.namespace || 'default';
    const name = `${(regarding.name ?? 'event').slice(0, 200)}.${this.#uniqueNanos(now).toString(16)}`;
    const eventTime = microTime(now);
    const body: KubernetesObject = Object.freeze({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name, namespace },
      eventTime,
      reportingController: controller,
      reportingInstance: this.#reportingInstance().slice(0, MAX_INSTANCE),
      action: record.action,
      reason: record.reason,
      type: record.type,
      regarding,
      ...(related === undefined ? {} : { related }),
      ...(note === undefined ? {} : { note }),
    });
    const series: Series = {
      controller,
      type: record.type,
      body,
      name,
      namespace,
      bucketKey,
      count: 1,
      settled: 0,
      lastObservedMs: now,
      lastObservedTime: eventTime,
      created: false,
      pending: false,
    };
    this.#series.set(key, series);
    this.#enqueue('create', series);
    this.#startTimer();
  }

  #controllerProblem(controller: string): string | undefined {
    if (!this.#checkedControllers.has(controller)) {
      const problems = qualifiedNameErrors(controller);
      this.#checkedControllers.set(controller, problems.length === 0 ? undefined : `is not a qualified name: ${problems.join('; ')}`);
    }
    return this.#checkedControllers.get(controller);
  }

  // A token bucket per regarding object, refilled lazily.
  #take(key: string, now: number): boolean {
    const bucket = this.#buckets.get(key) ?? { tokens: this.#burst, at: now };
    const refilled = Math.floor((now - bucket.at) / this.#refillMs);
    if (refilled > 0) {
      bucket.tokens = Math.min(this.#burst, bucket.tokens + refilled);
      bucket.at = bucket.tokens === this.#burst ? now : bucket.at + refilled * this.#refillMs;
    }
    this.#buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens--;
    return true;
  }

  // Event names are `<regarding name>.<unix nanoseconds in hex>` as client-go makes them; the
  // clock has millisecond resolution here, so equal times are bumped to stay unique.
  #uniqueNanos(now: number): bigint {
    let nanos = BigInt(now) * 1_000_000n;
    if (nanos <= this.#lastNanos) nanos = this.#lastNanos + 1n;
    this.#lastNanos = nanos;
    return nanos;
  }

  #enqueue(op: 'create' | 'patch', series: Series): void {
    if (this.#queue.length >= this.#maxQueued) {
      // A create that cannot wait is lost; a patch stays due and goes with the next flush.
      if (op === 'create') {
        this.#forget(series);
        this.#drop(series, 'queue_full');
      }
      return;
    }
    series.pending = true;
    this.#queue.push({ op, series });
    this.#writing ??= this.#write().finally(() => (this.#writing = undefined));
  }

  async #write(): Promise<void> {
    for (let next = this.#queue.shift(); next !== undefined; next = this.#queue.shift()) {
      const { op, series } = next;
      const count = series.count;
      const lastObservedTime = series.lastObservedTime;
      const withSeries = count > 1 ? { series: { count, lastObservedTime } } : {};
      try {
        if (op === 'patch' && series.created) {
          try {
            await this.#client.patch(EventsV1, idOf(series), { series: { count, lastObservedTime } });
          } catch (error) {
            // Expired or deleted meanwhile: write it again, series included (client-go does the same).
            if (!(error instanceof KubeApiError && error.status === 404)) throw error;
            await this.#client.create(EventsV1, { ...series.body, ...withSeries });
          }
        } else {
          await this.#client.create(EventsV1, { ...series.body, ...withSeries });
        }
        series.created = true;
        this.#metrics.written(series.controller, series.type, count - series.settled);
        series.settled = count;
      } catch (error) {
        this.#logger.warn(
          { err: error, event: `${series.namespace}/${series.name}`, controller: series.controller },
          'could not write a Kubernetes Event; dropped (the reconcile goes on)',
        );
        // A series whose Event was never written is forgotten, with the repeats that came during
        // the attempt; one that exists keeps those for its next patch.
        const lost = series.created ? count : series.count;
        if (!series.created) this.#forget(series);
        this.#metrics.dropped(series.controller, 'write_failed', lost - series.settled);
        series.settled = lost;
      } finally {
        series.pending = false;
      }
    }
  }

  async #idle(): Promise<void> {
    while (this.#writing !== undefined) await this.#writing;
  }

  #flushSeries(now: number): void {
    for (const [key, series] of this.#series) {
      if (series.count > series.settled && !series.pending) this.#enqueue(series.created ? 'patch' : 'create', series);
      else if (!series.pending && now - series.lastObservedMs >= SERIES_WINDOW_MS) this.#series.delete(key);
    }
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + Math.floor((now - bucket.at) / this.#refillMs) >= this.#burst) this.#buckets.delete(key);
    }
    if (this.#series.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  // A series that ended: its last repeats are written before it is forgotten.
  #retire(key: string, series: Series): void {
    this.#series.delete(key);
    if (series.count > series.settled && !series.pending) this.#enqueue(series.created ? 'patch' : 'create', series);
  }

  #forget(series: Series): void {
    for (const [key, s] of this.#series) if (s === series) this.#series.delete(key);
  }

  #drop(series: Series, reason: EventDropReason): void {
    this.#metrics.dropped(series.controller, reason, series.count - series.settled);
    series.settled = series.count;
  }

  #startTimer(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    this.#timer = setInterval(() => this.#flushSeries(this.#clock.now()), this.#flushMs);
    // Series flushing alone must not keep a process alive.
    this.#timer.unref();
  }
}

function idOf(series: Series): ResourceID {
  return ResourceID.of(series.name, series.namespace);
}

function positive(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value > 0)) {
    throw new EventRecordError(field, `is ${String(value)}`, `give a positive number or leave it out (defaults to ${fallback})`);
  }
  return value;
}

function checkRecord(record: EventRecord): void {
  if (record.type !== 'Normal' && record.type !== 'Warning') {
    throw new EventRecordError('type', `is ${JSON.stringify(record.type)}`, 'use "Normal" or "Warning"');
  }
  for (const field of ['reason', 'action'] as const) {
    const value = record[field];
    if (typeof value !== 'string' || value === '') {
      throw new EventRecordError(
        field,
        'is required',
        field === 'reason' ? 'give a CamelCase reason such as "DeploymentUnavailable"' : 'say what the controller did, e.g. "Reconcile"',
      );
    }
    if (value.length > MAX_REASON_OR_ACTION) {
      throw new EventRecordError(
        field,
        `has ${value.length} characters`,
        `keep it to ${MAX_REASON_OR_ACTION} (the API server refuses more)`,
      );
    }
  }
}

/** The reference to a primary: its kind from the controller (cached objects may lack it), no resourceVersion. */
function referenceOf(kind: ResourceKind, primary: KubernetesObject): EventObjectReference {
  const meta = primary.metadata ?? {};
  return {
    apiVersion: kind.group === '' ? kind.version : `${kind.group}/${kind.version}`,
    kind: kind.kind,
    ...(meta.namespace ? { namespace: meta.namespace } : {}),
    ...(meta.name ? { name: meta.name } : {}),
    ...(meta.uid ? { uid: meta.uid } : {}),
  };
}

/** An ObjectReference of the fields given (a Kubernetes object passed as a reference keeps only these). */
function compact(ref: EventObjectReference | KubernetesObject): EventObjectReference {
  const source = ref as EventObjectReference & KubernetesObject;
  const meta = source.metadata;
  const pick = {
    apiVersion: source.apiVersion,
    kind: source.kind,
    namespace: meta?.namespace ?? source.namespace,
    name: meta?.name ?? source.name,
    uid: meta?.uid ?? source.uid,
    resourceVersion: meta === undefined ? source.resourceVersion : undefined,
    fieldPath: source.fieldPath,
  };
  return Object.fromEntries(Object.entries(pick).filter(([, v]) => v !== undefined && v !== ''));
}

function truncateBytes(text: string, max: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return text;
  // Cut on a character boundary: drop a partial UTF-8 sequence at the end.
  let end = max;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
