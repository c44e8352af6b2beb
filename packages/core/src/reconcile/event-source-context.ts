import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { ControllerConfiguration } from './controller-configuration.js';
import type { PrimaryCache } from './primary-cache.js';

/**
 * What `Reconciler.prepareEventSources` gets to build its event sources with (JOSDK
 * `EventSourceContext`).
 *
 * @typeParam C the client type the Kubernetes layer provides.
 *
 * @example
 * ```ts
 * import { TimerEventSource, UpdateControl, type EventSource, type EventSourceContext, type KubernetesObject, type Reconciler } from '@kindex/core';
 *
 * class RenewingReconciler implements Reconciler {
 *   readonly timers = new TimerEventSource({ name: 'renewal' });
 *   prepareEventSources(context: EventSourceContext): EventSource<unknown, KubernetesObject>[] {
 *     // The configuration tells a source which namespaces the controller watches.
 *     console.log(`sources for ${context.configuration.name} in ${String(context.configuration.namespaces)}`);
 *     return [this.timers];
 *   }
 *   reconcile(primary: KubernetesObject): UpdateControl {
 *     this.timers.scheduleOnce(primary, 24 * 3600_000);
 *     return UpdateControl.noUpdate();
 *   }
 * }
 * ```
 */
export interface EventSourceContext<P extends KubernetesObject = KubernetesObject, C = unknown> {
  /** The controller's primary cache, open to `addIndexer` until the controller starts. */
  readonly primaryCache: PrimaryCache<P>;
  /** The client for API calls. */
  readonly client: C;
  /** The controller's configuration. */
  readonly configuration: ControllerConfiguration;
}
