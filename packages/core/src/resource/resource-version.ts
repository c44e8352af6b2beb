import type { KubernetesObject } from './kubernetes-object.js';

/**
 * Whether `a` is a strictly newer version of an object than `b`.
 *
 * resourceVersions are opaque to clients in general, but kube-apiserver issues etcd revisions
 * (decimal integers, compared here numerically without parsing, so any length works); when
 * either is missing or not such an integer the order is unknown, and unknown counts as not
 * newer.
 *
 * @example
 * ```ts
 * import { type KubernetesObject } from '@kindex/core';
 * import { isNewerVersion } from '@kindex/core/internal';
 * declare const written: KubernetesObject;
 * declare const cached: KubernetesObject;
 *
 * // Prefer what we just wrote until the informer catches up with it.
 * const current = isNewerVersion(written, cached) ? written : cached;
 * ```
 */
export function isNewerVersion(a: KubernetesObject, b: KubernetesObject): boolean {
  const ra = a.metadata?.resourceVersion;
  const rb = b.metadata?.resourceVersion;
  if (ra === undefined || rb === undefined || !/^\d+$/.test(ra) || !/^\d+$/.test(rb)) return false;
  return ra.length !== rb.length ? ra.length > rb.length : ra > rb;
}
