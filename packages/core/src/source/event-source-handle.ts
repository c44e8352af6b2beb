import type { EventSource } from './event-source.js';
import type { SecondaryType } from './secondary-type.js';
import Type from 'typebox';
import { defineOptions } from '../options/define-options.js';

/**
 * A typed name for one registered event source: `context.getEventSource(handle)` returns the
 * source as its own class (`InformerEventSource<ConfigMap, WebPage>` with `get`, `list` and
 * `byIndex`), with no cast. Core cannot name the classes of the Kubernetes layer, so the layer
 * that defines a class makes its handles (`InformerEventSource.handle(kind, primaryKind)`), and
 * `accepts` checks at run time that the source found is really one: a handle that names the
 * wrong source fails with {@link EventSourceClassMismatchError} instead of a later
 * "undefined is not a function".
 *
 * @typeParam S the class of the source the handle stands for.
 * @example
 * ```ts
 * import { InformerEventSource, Kinds, resourceKind, type KubeClient } from '@kindex/informer';
 * import type { Context, KubernetesObject } from '@kindex/core';
 * const WebPageKind = resourceKind({ group: 'sample.dev', version: 'v1', kind: 'WebPage', plural: 'webpages', namespaced: true });
 * declare const context: Context<KubernetesObject, KubeClient>;
 * declare const page: KubernetesObject;
 *
 * const ConfigMaps = InformerEventSource.handle(Kinds.ConfigMap, WebPageKind);
 * // In reconcile: the source as its class, with list/get/byIndex, no cast.
 * const all = context.getEventSource(ConfigMaps).list(page.metadata?.namespace);
 * ```
 * @see eventSourceHandle
 */
export interface EventSourceHandle<S> {
  /** The type the source serves; the lookup goes by its name. */
  readonly type: SecondaryType<unknown>;
  /** The source's name, when several serve the type. Defaults to the only one. */
  readonly eventSourceName: string | undefined;
  /** What the source must be, for error messages (`InformerEventSource`). */
  readonly className: string;
  /** Whether a registered source is an `S`. */
  accepts(source: EventSource<unknown, never>): source is EventSource<unknown, never> & S;
}

/**
 * Options of {@link eventSourceHandle}.
 *
 * @example
 * ```ts
 * import { secondaryType, type EventSource } from '@kindex/core';
 * import { eventSourceHandle, type EventSourceHandleOptions } from '@kindex/core/internal';
 * declare const mySources: Set<EventSource<unknown, never>>;
 *
 * // The source named "nightly" among those serving Backup, recognised by membership.
 * const options: EventSourceHandleOptions<EventSource<unknown, never>> = {
 *   type: secondaryType<unknown>('Backup'),
 *   eventSourceName: 'nightly',
 *   className: 'BackupEventSource',
 *   accepts: (s): s is EventSource<unknown, never> => mySources.has(s),
 * };
 * const Nightly = eventSourceHandle(options);
 * ```
 */
export interface EventSourceHandleOptions<S> {
  /** The type the source serves. */
  readonly type: SecondaryType<unknown>;
  /** The source's name. Defaults to undefined: the only source of the type. */
  readonly eventSourceName?: string | undefined;
  /** What the source must be, for error messages. */
  readonly className: string;
  /** The run-time check (usually `instanceof`). */
  readonly accepts: (source: EventSource<unknown, never>) => source is EventSource<unknown, never> & S;
}

/** {@link EventSourceHandleOptions}' keys and value checks. */
const EVENT_SOURCE_HANDLE_OPTIONS = defineOptions<EventSourceHandleOptions<unknown>>('eventSourceHandle options', {
  type: Type.Unknown(),
  eventSourceName: Type.Optional(Type.String({ description: 'the name of an event source' })),
  className: Type.String({ description: 'the name of the event source class' }),
  accepts: Type.Unknown(),
});

/**
 * Makes an {@link EventSourceHandle}. Layers that define event source classes wrap it (see
 * `InformerEventSource.handle`); reconcilers rarely call it themselves.
 *
 * @example
 * ```ts
 * import { PollingEventSource, secondaryType, type KubernetesObject } from '@kindex/core';
 * import { eventSourceHandle } from '@kindex/core/internal';
 * interface Quota { readonly team: string; readonly cpu: number }
 * const QuotaType = secondaryType<Quota>('Quota');
 *
 * // A handle for a polling source of quotas, so getEventSource(Quotas) is a PollingEventSource.
 * const Quotas = eventSourceHandle<PollingEventSource<Quota, KubernetesObject>>({
 *   type: QuotaType,
 *   className: 'PollingEventSource',
 *   accepts: (s): s is PollingEventSource<Quota, KubernetesObject> => s instanceof PollingEventSource,
 * });
 * ```
 */
export function eventSourceHandle<S>(options: EventSourceHandleOptions<S>): EventSourceHandle<S> {
  EVENT_SOURCE_HANDLE_OPTIONS.check(options);
  if (typeof options?.accepts !== 'function' || typeof options.type?.name !== 'string') {
    throw new TypeError('eventSourceHandle: options need a type token and an accepts(source) check');
  }
  return Object.freeze({
    type: options.type,
    eventSourceName: options.eventSourceName,
    className: options.className,
    accepts: options.accepts,
  });
}
