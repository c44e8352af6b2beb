import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { ControllerConfiguration } from './controller-configuration.js';
import type { PrimaryCache } from './primary-cache.js';

/**
 * What `Reconciler.prepareEventSources` gets to build its event sources with (JOSDK
 * `EventSourceContext`).
 *
 * @typeParam C the client type the Kubernetes layer provides.
 */
export interface EventSourceContext<P extends KubernetesObject = KubernetesObject, C = unknown> {
  /** The controller's primary cache, open to `addIndexer` until the controller starts. */
  readonly primaryCache: PrimaryCache<P>;
  /** The client for API calls. */
  readonly client: C;
  /** The controller's configuration. */
  readonly configuration: ControllerConfiguration;
}
