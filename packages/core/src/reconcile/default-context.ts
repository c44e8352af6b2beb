import type { RetryInfo } from '../queue/retry.js';
import { noopEventRecorder, type EventRecorder } from '../recorder/event-recorder.js';
import type { KubernetesObject } from '../resource/kubernetes-object.js';
import { ResourceID } from '../resource/resource-id.js';
import { isNewerVersion } from '../resource/resource-version.js';
import type { EventSource, SecondaryResourceReader } from '../source/event-source.js';
import type { SecondaryType } from '../source/secondary-type.js';
import type { EventSourceHandle } from '../source/event-source-handle.js';
import {
  SECONDARY_RESOURCE_OPTIONS,
  SECONDARY_RESOURCES_OPTIONS,
  type Context,
  type SecondaryResourceOptions,
  type SecondaryResourcesOptions,
} from './context.js';
import { rejectUnknownOptions } from '../options/reject-unknown-options.js';
import {
  EventSourceClassMismatchError,
  MultipleEventSourcesForTypeError,
  MultipleSecondaryResourcesError,
  NoEventSourceForTypeError,
} from './context-errors.js';
import { noopLogger, type Logger } from './logger.js';
import type { PrimaryCacheReader } from './primary-cache.js';

/**
 * Options of {@link DefaultContext}. The context copies what it reads when it is made and keeps
 * no reference to this object, so one object may be refilled for the next context (the
 * controller does: no options object per reconcile).
 *
 * @example
 * ```ts
 * import { type KubernetesObject, type PrimaryCacheReader } from '@kindex/core';
 * import { DefaultContext, type DefaultContextOptions } from '@kindex/core/internal';
 * declare const webApp: KubernetesObject;
 * declare const primaryCache: PrimaryCacheReader;
 *
 * // A context for a test of the last retry.
 * const options: DefaultContextOptions<KubernetesObject, undefined> = {
 *   primary: webApp,
 *   eventSources: [],
 *   primaryCache,
 *   client: undefined,
 *   retryInfo: { attemptCount: 5, isLastAttempt: true },
 * };
 * const context = new DefaultContext(options);
 * ```
 */
export interface DefaultContextOptions<P extends KubernetesObject, C> {
  /** The primary being reconciled. */
  readonly primary: P;
  /** The controller's registered event sources (names unique). */
  readonly eventSources: readonly EventSource<unknown, P>[];
  /**
   * The primary cache (ideally a snapshot of it), or a function that makes it when the
   * reconciler first asks (`getPrimaryCache`): a snapshot costs an allocation per namespace and
   * makes the store keep old versions until `release()`, and most reconcilers never read it.
   * Made at most once per context; released by `release()` only if made.
   */
  readonly primaryCache: PrimaryCacheReader<P> | (() => PrimaryCacheReader<P>);
  /** The client. */
  readonly client: C;
  /** Retry state of this attempt. Defaults to undefined (a first attempt). */
  readonly retryInfo?: RetryInfo | undefined;
  /** Whether the primary's final state is unknown. Defaults to false. */
  readonly primaryFinalStateUnknown?: boolean;
  /**
   * Aborted when the attempt should give up (see `Context.getSignal`), or what makes it when the
   * reconciler first asks (a signal costs about a microsecond to create, and most reconciles
   * never look): a function, or an object whose `signal` property is read then (an
   * `AbortController`, a `DispatchRequest`: no closure per reconcile). Defaults to a signal never
   * aborted.
   */
  readonly signal?: AbortSignal | (() => AbortSignal) | { readonly signal: AbortSignal };
  /**
   * How to freeze one source for this reconcile. Defaults to `source.snapshot()` when the
   * source has it, else the source itself (read live).
   */
  readonly snapshot?: (source: EventSource<unknown, P>) => SecondaryResourceReader<unknown, P>;
  /** The reconcile's logger. Defaults to {@link noopLogger}. */
  readonly logger?: Logger;
  /**
   * Records Events for this reconcile (regarding its primary), or a function that makes the
   * recorder when the reconciler first asks (`getEventRecorder`), at most once; it is given the
   * primary, so one function serves every reconcile of a controller. Defaults to
   * {@link noopEventRecorder}.
   */
  readonly eventRecorder?: EventRecorder | ((primary: P) => EventRecorder);
}

/** A context's event sources by the name of their resource type, each with its reader for this reconcile. */
type SourcesByType<P extends KubernetesObject> = Map<
  string,
  { readonly source: EventSource<unknown, P>; readonly reader: SecondaryResourceReader<unknown, P> | undefined }[]
>;

/**
 * The standard {@link Context}: resolves secondary resources over a list of event sources.
 *
 * Every source that serves resources is snapshotted when the context is created, so the whole
 * reconcile reads one point in time (O(1) per source for indexed caches; `release()` ends them).
 * A primary cache given as a function is snapshotted when the reconciler first reads it.
 *
 * @example
 * ```ts
 * import { TimerEventSource, type KubernetesObject, type PrimaryCacheReader } from '@kindex/core';
 * import { DefaultContext } from '@kindex/core/internal';
 * declare const webApp: KubernetesObject;
 * declare const primaryCache: PrimaryCacheReader;
 *
 * // Call a reconciler directly in a unit test, with the sources it would get in a controller.
 * const context = new DefaultContext({ primary: webApp, eventSources: [new TimerEventSource()], primaryCache, client: undefined });
 * ```
 */
export class DefaultContext<P extends KubernetesObject = KubernetesObject, C = unknown> implements Context<P, C> {
  readonly #primary: P;
  /** Sources by resource type; made only when the controller has secondary sources (many have none). */
  readonly #byType: SourcesByType<P> | undefined;
  #primaryCache: PrimaryCacheReader<P> | (() => PrimaryCacheReader<P>);
  readonly #client: C;
  readonly #retryInfo: RetryInfo | undefined;
  readonly #finalStateUnknown: boolean;
  readonly #logger: Logger;
  #eventRecorder: EventRecorder | ((primary: P) => EventRecorder);
  #signal: AbortSignal | (() => AbortSignal) | { readonly signal: AbortSignal } | undefined;

  constructor(options: DefaultContextOptions<P, C>) {
    this.#primary = options.primary;
    this.#primaryCache = options.primaryCache;
    this.#client = options.client;
    this.#retryInfo = options.retryInfo;
    this.#finalStateUnknown = options.primaryFinalStateUnknown ?? false;
    this.#logger = options.logger ?? noopLogger;
    this.#eventRecorder = options.eventRecorder ?? noopEventRecorder;
    this.#signal = options.signal;
    const snapshot = options.snapshot ?? defaultSnapshot;
    let byType: SourcesByType<P> | undefined;
    for (const source of options.eventSources) {
      const type = source.resourceType?.name;
      if (type === undefined) continue;
      const readable = source.snapshot !== undefined || source.getSecondaryResources !== undefined || options.snapshot !== undefined;
      const entry = { source, reader: readable ? snapshot(source) : undefined };
      byType ??= new Map();
      const list = byType.get(type);
      if (list === undefined) byType.set(type, [entry]);
      else list.push(entry);
    }
    this.#byType = byType;
  }

  getSecondaryResources<R>(type: SecondaryType<R>, options: SecondaryResourcesOptions = {}): R[] {
    // Per reconcile: only the allocation-free key check, not the schema (values are typed by the caller).
    rejectUnknownOptions(SECONDARY_RESOURCES_OPTIONS.name, options, SECONDARY_RESOURCES_OPTIONS.keys);
    const entries = this.#entries(type, options.eventSourceName);
    const all: R[] = [];
    for (const { reader } of entries) {
      if (reader !== undefined) for (const r of reader.getSecondaryResources(this.#primary)) all.push(r as R);
    }
    return options.deduplicate === false || entries.length < 2 ? all : deduplicate(all);
  }

  getSecondaryResource<R>(type: SecondaryType<R>, options: SecondaryResourceOptions = {}): R | undefined {
    rejectUnknownOptions(SECONDARY_RESOURCE_OPTIONS.name, options, SECONDARY_RESOURCE_OPTIONS.keys);
    const entry = this.#single(type, options.eventSourceName);
    const found = entry.reader === undefined ? [] : (entry.reader.getSecondaryResources(this.#primary) as readonly R[]);
    if (found.length > 1) throw new MultipleSecondaryResourcesError(ResourceID.keyOfResource(this.#primary), type.name, found.length);
    return found[0];
  }

  getEventSource<R>(type: SecondaryType<R>, name?: string): EventSource<R, P>;
  getEventSource<S extends EventSource<unknown, P>>(handle: EventSourceHandle<S>): S;
  getEventSource<R, S extends EventSource<unknown, P>>(
    typeOrHandle: SecondaryType<R> | EventSourceHandle<S>,
    name?: string,
  ): EventSource<R, P> | S {
    if (!isHandle(typeOrHandle)) return this.#single(typeOrHandle, name).source as EventSource<R, P>;
    const { source } = this.#single(typeOrHandle.type, typeOrHandle.eventSourceName);
    if (!typeOrHandle.accepts(source)) {
      const actual = (source as { constructor?: { name?: string } }).constructor?.name ?? typeof source;
      throw new EventSourceClassMismatchError(typeOrHandle.type.name, source.name, typeOrHandle.className, actual);
    }
    return source;
  }

  getPrimaryCache(): PrimaryCacheReader<P> {
    const cache = this.#primaryCache;
    return typeof cache === 'function' ? (this.#primaryCache = cache()) : cache;
  }

  getClient(): C {
    return this.#client;
  }

  getRetryInfo(): RetryInfo | undefined {
    return this.#retryInfo;
  }

  isPrimaryFinalStateUnknown(): boolean {
    return this.#finalStateUnknown;
  }

  getLogger(): Logger {
    return this.#logger;
  }

  getEventRecorder(): EventRecorder {
    const recorder = this.#eventRecorder;
    return typeof recorder === 'function' ? (this.#eventRecorder = recorder(this.#primary)) : recorder;
  }

  getSignal(): AbortSignal {
    const signal = this.#signal;
    if (typeof signal === 'function') return (this.#signal = signal());
    if (signal === undefined) return (this.#signal = new AbortController().signal);
    return 'signal' in signal ? (this.#signal = signal.signal) : signal;
  }

  /**
   * Ends the reconcile's views: releases every snapshot the context took (the event sources'
   * and the primary cache's), so the caches stop keeping old versions for it. The controller
   * calls it when the reconcile ends; reading a released snapshot throws. Idempotent.
   * @example
   * ```ts
   * import { type KubernetesObject, type PrimaryCacheReader } from '@kindex/core';
   * import { DefaultContext } from '@kindex/core/internal';
   * declare const webApp: KubernetesObject;
   * declare const primaryCache: PrimaryCacheReader;
   *
   * const context = new DefaultContext({ primary: webApp, eventSources: [], primaryCache, client: undefined });
   * try {
   *   // ... run the reconciler with the context ...
   * } finally {
   *   context.release();
   * }
   * ```
   */
  release(): void {
    if (this.#byType !== undefined) for (const entries of this.#byType.values()) for (const { reader } of entries) reader?.release?.();
    // A primary cache never asked for was never made: nothing to release.
    const cache = this.#primaryCache;
    if (typeof cache !== 'function') cache.release?.();
  }

  #entries(type: SecondaryType<unknown>, name: string | undefined) {
    const all = this.#byType?.get(type.name) ?? [];
    const chosen = name === undefined ? all : all.filter((e) => e.source.name === name);
    if (chosen.length === 0) throw new NoEventSourceForTypeError(type.name, name);
    return chosen;
  }

  #single(type: SecondaryType<unknown>, name: string | undefined) {
    const entries = this.#entries(type, name);
    if (entries.length > 1)
      throw new MultipleEventSourcesForTypeError(
        type.name,
        entries.map((e) => e.source.name),
      );
    return entries[0] as (typeof entries)[number];
  }
}

function isHandle<S>(value: SecondaryType<unknown> | EventSourceHandle<S>): value is EventSourceHandle<S> {
  return typeof (value as Partial<EventSourceHandle<S>>).accepts === 'function';
}

function defaultSnapshot<P extends KubernetesObject>(source: EventSource<unknown, P>): SecondaryResourceReader<unknown, P> {
  if (source.snapshot !== undefined) return source.snapshot();
  return { getSecondaryResources: (primary) => source.getSecondaryResources?.(primary) ?? [] };
}

/**
 * Collapses copies of one Kubernetes object (same uid, else same namespace/name), keeping the
 * newest resourceVersion. Values without metadata are kept as they are. First-seen order.
 */
function deduplicate<R>(resources: readonly R[]): R[] {
  const index = new Map<string, number>();
  const out: R[] = [];
  for (const r of resources) {
    const identity = identityOf(r);
    if (identity === undefined) {
      if (!out.includes(r)) out.push(r);
      continue;
    }
    const at = index.get(identity);
    if (at === undefined) {
      index.set(identity, out.length);
      out.push(r);
    } else if (isNewerVersion(r as KubernetesObject, out[at] as KubernetesObject)) {
      out[at] = r;
    }
  }
  return out;
}

function identityOf(r: unknown): string | undefined {
  const meta = (r as KubernetesObject | null)?.metadata;
  if (meta === undefined || meta === null || typeof meta !== 'object') return undefined;
  if (typeof meta.uid === 'string' && meta.uid !== '') return `uid:${meta.uid}`;
  if (typeof meta.name === 'string' && meta.name !== '') return `key:${ResourceID.keyOf(meta.name, meta.namespace)}`;
  return undefined;
}
