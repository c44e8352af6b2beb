import type { RetryInfo } from '../queue/retry.js';
import type { EventRecorder } from '../recorder/event-recorder.js';
import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { EventSource } from '../source/event-source.js';
import type { SecondaryType } from '../source/secondary-type.js';
import type { EventSourceHandle } from '../source/event-source-handle.js';
import type { Logger } from './logger.js';
import type { PrimaryCacheReader } from './primary-cache.js';
import Type from 'typebox';
import { defineOptions } from '../options/define-options.js';

/**
 * Options of `Context.getSecondaryResources`.
 *
 * @example
 * ```ts
 * import { secondaryType, type Context, type KubernetesObject, type SecondaryResourcesOptions } from '@kindex/core';
 * declare const context: Context;
 *
 * // Two sources hold ConfigMaps; read the ones of the "settings" source only.
 * const options: SecondaryResourcesOptions = { eventSourceName: 'settings' };
 * const settings = context.getSecondaryResources(secondaryType<KubernetesObject>('ConfigMap'), options);
 * ```
 */
export interface SecondaryResourcesOptions {
  /** Read only the event source with this name. Defaults to every source of the type. */
  readonly eventSourceName?: string;
  /**
   * Collapse copies of one object served by several sources (same uid, else same
   * namespace/name), keeping the newest resourceVersion. Defaults to true.
   */
  readonly deduplicate?: boolean;
}

/** {@link SecondaryResourcesOptions}' keys and value checks. */
export const SECONDARY_RESOURCES_OPTIONS = defineOptions<SecondaryResourcesOptions>('getSecondaryResources options', {
  eventSourceName: Type.Optional(Type.String({ description: 'the name of an event source' })),
  deduplicate: Type.Optional(Type.Boolean({ description: 'true or false' })),
});

/**
 * Options of `Context.getSecondaryResource`.
 *
 * @example
 * ```ts
 * import { secondaryType, type Context, type KubernetesObject, type SecondaryResourceOptions } from '@kindex/core';
 * declare const context: Context;
 *
 * const options: SecondaryResourceOptions = { eventSourceName: 'tls-secret' };
 * const secret = context.getSecondaryResource(secondaryType<KubernetesObject>('Secret'), options);
 * ```
 */
export interface SecondaryResourceOptions {
  /** The event source to read when several serve the type. Defaults to the only one. */
  readonly eventSourceName?: string;
}

/** {@link SecondaryResourceOptions}' keys and value checks. */
export const SECONDARY_RESOURCE_OPTIONS = defineOptions<SecondaryResourceOptions>('getSecondaryResource options', {
  eventSourceName: Type.Optional(Type.String({ description: 'the name of an event source' })),
});

/**
 * What a reconcile knows besides its primary (JOSDK `Context`).
 *
 * Contract:
 * - Reads come from caches, never the network, and one `Context` reads one consistent snapshot
 *   taken when it was created: two calls in one reconcile never disagree.
 * - The snapshot includes the reconcile's own earlier writes (read-after-write), even before
 *   the watch has delivered them.
 * - Returned objects are frozen; copy before changing (`structuredClone`).
 *
 * @typeParam C the client type the Kubernetes layer provides.
 *
 * @example
 * ```ts
 * import { secondaryType, UpdateControl, type Context, type KubernetesObject } from '@kindex/core';
 * type ConfigMap = KubernetesObject & { data?: Record<string, string> };
 * const ConfigMaps = secondaryType<ConfigMap>('ConfigMap');
 *
 * async function reconcile(primary: KubernetesObject, context: Context): Promise<UpdateControl> {
 *   const config = context.getSecondaryResource(ConfigMaps); // from the source's cache, no API call
 *   if (config === undefined) context.getLogger().info('ConfigMap not created yet');
 *   context.getSignal().throwIfAborted(); // a timed-out or stopping reconcile ends early
 *   return UpdateControl.noUpdate();
 * }
 * ```
 */
export interface Context<P extends KubernetesObject = KubernetesObject, C = unknown> {
  /**
   * The secondary resources of the primary of this type: the union over every event source
   * of the type (or the one named).
   * @throws {NoEventSourceForTypeError} when no source (or no source of that name) serves the
   * type: a silent empty list would hide a missing registration.
   */
  getSecondaryResources<R>(type: SecondaryType<R>, options?: SecondaryResourcesOptions): R[];
  /**
   * The one secondary resource of the primary of this type, or undefined if there is none.
   * @throws {NoEventSourceForTypeError} when no source serves the type.
   * @throws {MultipleEventSourcesForTypeError} when several do and none is named.
   * @throws {MultipleSecondaryResourcesError} when more than one resource matches.
   */
  getSecondaryResource<R>(type: SecondaryType<R>, options?: SecondaryResourceOptions): R | undefined;
  /**
   * The event source serving the type (the one named, if `name` is given).
   * @throws {NoEventSourceForTypeError} or {MultipleEventSourcesForTypeError} as
   * `getSecondaryResource`.
   */
  getEventSource<R>(type: SecondaryType<R>, name?: string): EventSource<R, P>;
  /**
   * The event source a handle names, as the handle's class (no cast needed to reach, say, an
   * `InformerEventSource`'s `get`/`list`/`byIndex`). The source is the live one, not this
   * reconcile's snapshot.
   * @throws {NoEventSourceForTypeError} or {MultipleEventSourcesForTypeError} as above.
   * @throws {EventSourceClassMismatchError} when the source found is not of the handle's class.
   */
  getEventSource<S extends EventSource<unknown, P>>(handle: EventSourceHandle<S>): S;
  /** The controller's cache of primaries, as of this reconcile's snapshot. */
  getPrimaryCache(): PrimaryCacheReader<P>;
  /** The client for API calls. */
  getClient(): C;
  /** Undefined on a first attempt; the failures before this one on a retry. */
  getRetryInfo(): RetryInfo | undefined;
  /**
   * True in `cleanup` when the primary vanished without the controller seeing its final state
   * (a missed delete across a relist): the primary given is its last known state.
   */
  isPrimaryFinalStateUnknown(): boolean;
  /**
   * A logger for this reconcile: its lines carry the controller, the primary's kind, namespace
   * and name, and the reconcile's id, so they join the engine's own lines about the same run.
   */
  getLogger(): Logger;

  /**
   * Aborted when this attempt should give up: its reconcile timeout passed, the controller
   * stopped past its drain timeout, or (under leader election) the replica lost its lease. Pass
   * it to long waits and API calls; work after it aborted is abandoned, and writes through a
   * fenced client are refused anyway.
   */
  getSignal(): AbortSignal;

  /**
   * Records Kubernetes Events (`events.k8s.io/v1`) about the primary, or another object named in
   * the record. Fire and forget: recording never blocks or fails the reconcile (see
   * `EventRecorder`). A context built without one drops the records.
   */
  getEventRecorder(): EventRecorder;
}
