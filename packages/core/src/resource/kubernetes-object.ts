/**
 * The shape kindex knows of every Kubernetes object: plain JSON as the API server sends it.
 *
 * kindex never deserializes objects into classes. Caches hold exactly what came off the wire
 * (minus what a transform drops), frozen, so the same object reads the same whether it came from
 * a list or a watch. User types extend {@link KubernetesObject} with their own `spec`/`status`.
 *
 * @example
 * ```ts
 * import type { KubernetesObject } from '@kindex/core';
 * interface Job extends KubernetesObject {
 *   spec: { clusterName: string };
 *   status?: { valueFromCluster?: string };
 * }
 * ```
 */
export interface KubernetesObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/**
 * The metadata fields kindex reads. Everything else the server sends is kept untouched.
 *
 * @example
 * ```ts
 * import type { ObjectMeta } from '@kindex/core';
 *
 * // Metadata of a ConfigMap an operator creates for its primary.
 * const meta: ObjectMeta = { name: 'web-config', namespace: 'shop', labels: { 'app.kubernetes.io/managed-by': 'web-operator' } };
 * ```
 */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
}

/**
 * A reference from a dependent object to its owner, as in `metadata.ownerReferences`.
 *
 * @example
 * ```ts
 * import type { KubernetesObject, OwnerReference } from '@kindex/core';
 * declare const primary: KubernetesObject;
 *
 * // Let the garbage collector delete the secondary with its primary, and mark us its controller.
 * const owner: OwnerReference = {
 *   apiVersion: primary.apiVersion!,
 *   kind: primary.kind!,
 *   name: primary.metadata!.name!,
 *   uid: primary.metadata!.uid!,
 *   controller: true,
 *   blockOwnerDeletion: true,
 * };
 * ```
 */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}
