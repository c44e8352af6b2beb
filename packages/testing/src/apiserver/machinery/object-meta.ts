// Small helpers over the plain-JSON objects the server stores.

import type { Json } from '../storage/object-store.js';

/** The metadata of an object (an empty object when absent). */
export function metaOf(obj: Readonly<Json>): Json {
  const m = obj['metadata'];
  return m !== null && typeof m === 'object' && !Array.isArray(m) ? (m as Json) : {};
}

/** RFC 3339 with seconds precision, as Kubernetes writes metav1.Time. */
export function nowTimestamp(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

/** The finalizers of an object. */
export function finalizersOf(obj: Readonly<Json>): string[] {
  const f = metaOf(obj)['finalizers'];
  return Array.isArray(f) ? (f as string[]) : [];
}

/** The owner uids of an object. */
export function ownerRefsOf(obj: Readonly<Json>): Json[] {
  const r = metaOf(obj)['ownerReferences'];
  return Array.isArray(r) ? (r as Json[]) : [];
}
