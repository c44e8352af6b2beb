/**
 * The shape kindex knows of every Kubernetes object: plain JSON as the API server sends it.
 *
 * kindex never deserializes objects into classes. Caches hold exactly what came off the wire
 * (minus what a transform drops), frozen, so the same object reads the same whether it came from
 * a list or a watch. User types extend {@link KubernetesObject} with their own `spec`/`status`.
 *
 * @example
 * ```ts
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

/** The metadata fields kindex reads. Everything else the server sends is kept untouched. */
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

/** A reference from a dependent object to its owner, as in `metadata.ownerReferences`. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}
