/**
 * Deciding, without a write, whether a live object already holds what a field manager would
 * server-side apply (JOSDK's SSABasedGenericKubernetesResourceMatcher). Comparing the whole live
 * object with the desired one gives false diffs — fields the server defaulted (a Secret's `type`,
 * a port's `protocol`) and fields other managers own (a label another tool added) are in the live
 * object but not in the desired one — and an operator that writes on every false diff never
 * settles. So only the part of the live object the manager owns by its `Apply` entry in
 * `metadata.managedFields` is compared.
 *
 * The live object must still carry its managedFields: informer caches drop them by default (see
 * `dropManagedFields`); a cache feeding this matcher keeps them (`transform: null`, or a
 * transform that keeps the manager's entry).
 *
 * @module
 */
import { type KubernetesObject } from '@kindex/core';
import { defineOptions, jsonEqual, rejectUnknownOptions, isJsonObject } from '@kindex/core/internal';
import Type from 'typebox';
import type { ObjectTransform } from '../kind/object-transform.js';

type Json = Record<string, unknown>;

// Set by the server, owned by nobody: never part of the comparison.
const IDENTITY_META = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
]);

/**
 * Options of {@link matchesAppliedFields}.
 *
 * @example
 * ```ts
 * import { matchesAppliedFields, type AppliedFieldsMatchOptions } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * declare const actual: KubernetesObject;
 * declare const desiredStatus: KubernetesObject;
 *
 * const options: AppliedFieldsMatchOptions = { subresource: 'status' };
 * const statusUpToDate = matchesAppliedFields(actual, desiredStatus, 'web-operator', options);
 * ```
 */
export interface AppliedFieldsMatchOptions {
  /**
   * The subresource the manager applies to: `status` compares status only; the main resource
   * (the default) compares everything but status, which an apply there cannot set.
   */
  readonly subresource?: 'status';
}

/** {@link AppliedFieldsMatchOptions}' keys (checked per call, keys only: it runs per reconcile). */
const APPLIED_FIELDS_MATCH_OPTIONS = defineOptions<AppliedFieldsMatchOptions>('matchesAppliedFields options', {
  subresource: Type.Optional(Type.Literal('status')),
});

/**
 * Whether `actual` already holds every field of `desired` with the same value, counting only the
 * fields `fieldManager` owns through server-side apply; false when the manager owns nothing yet.
 *
 * @example
 * ```ts
 * import { matchesAppliedFields } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * declare const actual: KubernetesObject;
 * declare const desired: KubernetesObject;
 *
 * // Skip the apply when the server already holds what we would apply (other managers' fields are ignored).
 * const upToDate = matchesAppliedFields(actual, desired, 'web-operator');
 * ```
 */
export function matchesAppliedFields(
  actual: KubernetesObject,
  desired: KubernetesObject,
  fieldManager: string,
  options: AppliedFieldsMatchOptions = {},
): boolean {
  rejectUnknownOptions(APPLIED_FIELDS_MATCH_OPTIONS.name, options, APPLIED_FIELDS_MATCH_OPTIONS.keys);
  const entries: readonly unknown[] = Array.isArray(actual.metadata?.managedFields) ? actual.metadata.managedFields : [];
  const entry = entries.find(
    (e): e is Json =>
      isJsonObject(e) &&
      e['manager'] === fieldManager &&
      e['operation'] === 'Apply' &&
      (e['subresource'] ?? undefined) === options.subresource,
  );
  if (entry === undefined || !isJsonObject(entry['fieldsV1'])) return false;
  const owned = ownedPart(actual, entry['fieldsV1']);
  const side = (o: unknown): unknown => normalize(restrict(withoutIdentity(o), options.subresource));
  return jsonEqual(side(owned), side(desired));
}

/**
 * The part of `value` that the FieldsV1 trie `fields` covers.
 *
 * @example
 * ```ts
 * import { ownedPart } from '@kindex/informer/internal';
 * import type { KubernetesObject } from '@kindex/core';
 * declare const actual: KubernetesObject & { data?: Record<string, string> };
 * declare const fieldsV1: Record<string, unknown>; // managedFields[i].fieldsV1 of our manager
 *
 * // The part of `data` our manager owns, to compare with what we want to apply.
 * const ours = ownedPart(actual.data, (fieldsV1['f:data'] ?? {}) as Record<string, unknown>);
 * ```
 */
export function ownedPart(value: unknown, fields: Readonly<Record<string, unknown>>): unknown {
  const children = Object.keys(fields).filter((k) => k !== '.');
  // A leaf (or an atomic value) is owned whole.
  if (children.length === 0) return value;
  if (isJsonObject(value)) {
    const out: Json = {};
    for (const k of children) {
      if (!k.startsWith('f:')) continue;
      const name = k.slice(2);
      if (value[name] !== undefined) out[name] = ownedPart(value[name], fields[k] as Json);
    }
    return out;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const k = children.find((c) => elementMatches(c, item, i));
      if (k !== undefined) out.push(ownedPart(item, fields[k] as Json));
    });
    return out;
  }
  return value;
}

function elementMatches(element: string, item: unknown, index: number): boolean {
  const body = element.slice(2);
  if (element.startsWith('k:')) {
    if (!isJsonObject(item)) return false;
    const key = JSON.parse(body) as Json;
    return Object.entries(key).every(([k, v]) => jsonEqual(item[k], v));
  }
  if (element.startsWith('v:')) return jsonEqual(item, JSON.parse(body));
  if (element.startsWith('i:')) return Number(body) === index;
  return false;
}

function withoutIdentity(o: unknown): unknown {
  if (!isJsonObject(o)) return o;
  const { apiVersion: _a, kind: _k, metadata, ...rest } = o;
  if (!isJsonObject(metadata)) return rest;
  const meta: Json = {};
  for (const [k, v] of Object.entries(metadata)) if (!IDENTITY_META.has(k)) meta[k] = v;
  return { ...rest, metadata: meta };
}

// An apply to the main resource cannot set status (a subresource); one to /status sets only status.
function restrict(o: unknown, subresource: 'status' | undefined): unknown {
  if (!isJsonObject(o)) return o;
  if (subresource === 'status') return { status: o['status'] };
  const { status: _s, ...rest } = o;
  return rest;
}

// Empty maps and nulls say nothing an apply would write; drop them on both sides.
function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalize);
  if (!isJsonObject(v)) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === null || x === undefined) continue;
    const n = normalize(x);
    if (isJsonObject(n) && Object.keys(n).length === 0) continue;
    out[k] = n;
  }
  return out;
}

/**
 * A cache transform for objects a manager server-side applies: keeps that manager's `Apply`
 * entries of managedFields (what {@link matchesAppliedFields} reads) and drops the others, which
 * are most of the bytes.
 *
 * @example
 * ```ts
 * import { InformerEventSource, Kinds } from '@kindex/informer';
 * import { keepAppliedFieldsOf } from '@kindex/informer/internal';
 *
 * // Cache only the fields our field manager applied to the Secrets we manage.
 * const builder = InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap).withTransform(keepAppliedFieldsOf('web-operator'));
 * ```
 */
export function keepAppliedFieldsOf<R extends KubernetesObject>(fieldManager: string): ObjectTransform<R> {
  return (object: R): R => {
    const entries = object.metadata?.managedFields;
    if (!Array.isArray(entries)) return object;
    const kept = entries.filter((e: unknown) => isJsonObject(e) && e['manager'] === fieldManager && e['operation'] === 'Apply');
    const metadata = { ...object.metadata };
    if (kept.length > 0) metadata.managedFields = kept;
    else delete metadata.managedFields;
    return { ...object, metadata };
  };
}
