import { InvalidResourceError, ResourceID } from '@kindex/core';
import { deepFreeze } from '@kindex/core/internal';
import type { KubernetesObject } from '@kindex/core';
import { TransformError } from '../reflector-error.js';
import type { MetadataInterning } from './metadata-interning.js';
import type { ObjectTransform } from '../../kind/object-transform.js';

/** What {@link prepareObject} needs to know about the type being reflected. */
export interface PrepareContext<R extends KubernetesObject> {
  readonly kind: string;
  readonly apiVersion: string;
  readonly namespaced: boolean;
  readonly transform: ObjectTransform<R>;
  /** Receives a transform failure; the object is then kept as it came. */
  readonly onTransformError: (error: TransformError) => void;
  /** This cache's shared copies of repeated metadata strings; absent, each object keeps its own. */
  readonly interning?: MetadataInterning;
}

/** An object ready for the cache, with the key and resourceVersion read while validating it. */
export interface PreparedObject<R> {
  readonly key: string;
  readonly resourceVersion: string;
  readonly object: R;
}

/**
 * The key is built when asked (a delete, a log line), from the name and namespace strings the
 * object already holds: a watch event then allocates no key string, and a list of 100,000 does
 * not keep 100,000 of them alive (promoted to the old generation) until the store has the items.
 */
class Prepared<R> implements PreparedObject<R> {
  constructor(
    readonly resourceVersion: string,
    readonly object: R,
    private readonly name: string,
    private readonly namespace: string | undefined,
  ) {}

  get key(): string {
    return keyOf(this.name, this.namespace);
  }
}

function keyOf(name: string, namespace: string | undefined): string {
  return ResourceID.keyOf(name, namespace || undefined);
}

/**
 * Validates a raw object off the wire, gives it `kind`/`apiVersion` when a list left them out
 * (so list and watch objects have one shape), applies the transform and freezes it deeply.
 * @throws {InvalidResourceError} naming the object and the bad field.
 */
export function prepareObject<R extends KubernetesObject>(raw: unknown, ctx: PrepareContext<R>): PreparedObject<R> {
  const obj = validated(raw, ctx);
  // Read before the transform, which may return another object: the key and version are the server's.
  const { name, namespace, resourceVersion } = obj.metadata as ValidMetadata;
  return new Prepared(resourceVersion, transformed(obj, ctx), name, namespace);
}

/**
 * As {@link prepareObject}, for an item of a list: the object alone. A list hands its items to
 * one store batch that reads names from the objects, so a wrapper per item would only be garbage
 * that lives (and is copied by the GC) until the last page arrives.
 * @throws {InvalidResourceError} naming the object and the bad field.
 */
export function prepareItem<R extends KubernetesObject>(raw: unknown, ctx: PrepareContext<R>): R {
  return transformed(validated(raw, ctx), ctx);
}

/** What {@link validated} guarantees of `metadata`. */
interface ValidMetadata {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly resourceVersion: string;
}

/** The raw object checked, with `kind` and `apiVersion`. */
function validated<R extends KubernetesObject>(raw: unknown, ctx: PrepareContext<R>): R {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new InvalidResourceError(undefined, 'object', `expected a JSON object, got ${describe(raw)}`);
  }
  let obj = raw as R & Record<string, unknown>;
  const meta = obj.metadata as Record<string, unknown> | null | undefined;
  if (
    meta === null ||
    typeof meta !== 'object' ||
    typeof meta.name !== 'string' ||
    meta.name === '' ||
    (meta.namespace !== undefined && typeof meta.namespace !== 'string')
  ) {
    ResourceID.fromResource(obj); // throws the error naming the field
    throw new InvalidResourceError(undefined, 'metadata', 'object is not a resource');
  }
  const name = meta.name;
  const namespace = meta.namespace;
  if (typeof meta.resourceVersion !== 'string' || meta.resourceVersion === '') {
    throw new InvalidResourceError(
      keyOf(name, namespace),
      'metadata.resourceVersion',
      `expected a non-empty string, got ${describe(meta.resourceVersion)}`,
    );
  }
  if (ctx.namespaced && (typeof meta.namespace !== 'string' || meta.namespace === '')) {
    throw new InvalidResourceError(
      keyOf(name, namespace),
      'metadata.namespace',
      `a ${ctx.kind} is namespaced but the object has no namespace`,
    );
  }
  if (meta.uid !== undefined && typeof meta.uid !== 'string') {
    throw new InvalidResourceError(keyOf(name, namespace), 'metadata.uid', `expected a string, got ${describe(meta.uid)}`);
  }
  if (obj.kind === undefined || obj.apiVersion === undefined) {
    // Lists of built-in types omit kind/apiVersion on items; watch events carry them. Put them
    // first and in kube-apiserver's order (kind, apiVersion), where a watch object has them, so
    // both give objects of one hidden class.
    obj = { kind: ctx.kind, apiVersion: ctx.apiVersion, ...obj };
  }
  if (typeof obj.kind !== 'string')
    throw new InvalidResourceError(keyOf(name, namespace), 'kind', `expected a string, got ${describe(obj.kind)}`);
  if (typeof obj.apiVersion !== 'string') {
    throw new InvalidResourceError(keyOf(name, namespace), 'apiVersion', `expected a string, got ${describe(obj.apiVersion)}`);
  }
  return obj;
}

/** Repeated strings shared, the transform applied (a failure is reported and keeps the object), then frozen deeply. */
function transformed<R extends KubernetesObject>(obj: R, ctx: PrepareContext<R>): R {
  ctx.interning?.share(obj as unknown as Record<string, unknown>);
  let result: R = obj;
  try {
    result = ctx.transform(obj);
  } catch (error) {
    const meta = obj.metadata as ValidMetadata;
    ctx.onTransformError(new TransformError(keyOf(meta.name, meta.namespace), { cause: error }));
  }
  // deepFreeze stops at frozen subtrees: a transform may reuse frozen pieces of an older object.
  deepFreeze(result);
  return result;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
