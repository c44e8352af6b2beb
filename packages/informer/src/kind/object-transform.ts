import type { KubernetesObject } from '@kindex/core';

// Declared beside the kinds rather than in reflector/: the client's apply matcher builds one
// (keepAppliedFieldsOf) and client/ sits below the reflector.

/**
 * Reshapes an object before the reflector caches it, for example to drop fields the operator
 * never reads and so save memory per cached object. It receives a fresh, still mutable object
 * straight from the wire and returns the object to cache (the same or a new one); the reflector
 * freezes the result. It must keep `metadata.name`, `namespace`, `uid` and `resourceVersion`.
 *
 * @example
 * ```ts
 * import { InformerEventSource, Kinds, type ObjectOfKind, type ObjectTransform } from '@kindex/informer';
 *
 * // Cache Secrets without their data: the reconciler only needs to know they exist.
 * const withoutData: ObjectTransform<ObjectOfKind<typeof Kinds.Secret>> = ({ data: _data, ...secret }) => secret;
 * const secrets = InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap).withTransform(withoutData);
 * ```
 */
export type ObjectTransform<R extends KubernetesObject = KubernetesObject> = (object: R) => R;
