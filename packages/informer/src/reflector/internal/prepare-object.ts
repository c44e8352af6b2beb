import { InvalidResourceError, ResourceID, deepFreeze } from '@kindex/core';
import type { KubernetesObject } from '@kindex/core';
import { TransformError } from '../reflector-error.js';
import type { ObjectTransform } from '../../kind/object-transform.js';

/** What {@link prepareObject} needs to know about the type being reflected. */
export interface PrepareContext<R extends KubernetesObject> {
  readonly kind: string;
  readonly apiVersion: string;
  readonly namespaced: boolean;
  readonly transform: ObjectTransform<R>;
  /** Receives a transform failure; the object is then kept as it came. */
  readonly onTransformError: (error: TransformError) => void;
}

/** An object ready for the cache, with the key and resourceVersion read while validating it. */
export interface PreparedObject<R> {
  readonly key: string;
  readonly resourceVersion: string;
  readonly object: R;
}

/**
 * Validates a raw object off the wire, gives it `kind`/`apiVersion` when a list left them out
 * (so list and watch objects have one shape), applies the transform and freezes it deeply.
 * @throws {InvalidResourceError} naming the object and the bad field.
 */
export function prepareObject<R extends KubernetesObject>(raw: unknown, ctx: PrepareContext<R>): PreparedObject<R> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new InvalidResourceError(undefined, 'object', `expected a JSON object, got ${describe(raw)}`);
  }
  let obj = raw as R & Record<string, unknown>;
  const ns = (obj.metadata as Record<string, unknown> | undefined)?.namespace;
  if (ns !== undefined && typeof ns !== 'string') {
    // ResourceID.keyOfResource would build a key from a non-string namespace rather than throw.
    ResourceID.fromResource(obj);
  }
  const key = ResourceID.keyOfResource(obj); // throws for a missing metadata or name
  const meta = obj.metadata as Record<string, unknown>;
  if (typeof meta.resourceVersion !== 'string' || meta.resourceVersion === '') {
    throw new InvalidResourceError(key, 'metadata.resourceVersion', `expected a non-empty string, got ${describe(meta.resourceVersion)}`);
  }
  if (ctx.namespaced && (typeof meta.namespace !== 'string' || meta.namespace === '')) {
    throw new InvalidResourceError(key, 'metadata.namespace', `a ${ctx.kind} is namespaced but the object has no namespace`);
  }
  if (meta.uid !== undefined && typeof meta.uid !== 'string') {
    throw new InvalidResourceError(key, 'metadata.uid', `expected a string, got ${describe(meta.uid)}`);
  }
  if (obj.kind === undefined || obj.apiVersion === undefined) {
    // Lists of built-in types omit kind/apiVersion on items; watch events carry them. Put them
    // first and in kube-apiserver's order (kind, apiVersion), where a watch object has them, so
    // both give objects of one hidden class.
    obj = { kind: ctx.kind, apiVersion: ctx.apiVersion, ...obj };
  }
  if (typeof obj.kind !== 'string') throw new InvalidResourceError(key, 'kind', `expected a string, got ${describe(obj.kind)}`);
  if (typeof obj.apiVersion !== 'string') {
    throw new InvalidResourceError(key, 'apiVersion', `expected a string, got ${describe(obj.apiVersion)}`);
  }
  const resourceVersion = meta.resourceVersion;
  let result: R = obj;
  try {
    result = ctx.transform(obj);
  } catch (error) {
    ctx.onTransformError(new TransformError(key, { cause: error }));
  }
  // deepFreeze stops at frozen subtrees: a transform may reuse frozen pieces of an older object.
  deepFreeze(result);
  return { key, resourceVersion, object: result };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
