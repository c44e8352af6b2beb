import type { KubernetesObject } from './kubernetes-object.js';

/**
 * Identifies a resource within one kind: its name and, for namespaced kinds, its namespace.
 *
 * The string {@link ResourceID.key} (`namespace/name`, or `name` for cluster-scoped objects) is
 * what kindex's stores and indexes key on: strings hash and compare fastest. `equals` and
 * `hashCode` give value semantics inside immutable.js collections as well.
 *
 * @example
 * ```ts
 * import { IndexedStore, ResourceID, type KubernetesObject } from '@kindex/core';
 * declare const configMap: KubernetesObject;
 * const store = new IndexedStore();
 * const id = ResourceID.fromResource(configMap);
 * store.get(id);
 * ResourceID.of('my-cluster', 'team-a').key; // 'team-a/my-cluster'
 * ```
 */
export class ResourceID {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly key: string;

  private constructor(name: string, namespace: string | undefined, key: string) {
    this.name = name;
    this.namespace = namespace;
    this.key = key;
    Object.freeze(this);
  }

  /** The ID of a namespaced (namespace given) or cluster-scoped (namespace omitted) resource. */
  static of(name: string, namespace?: string): ResourceID {
    if (typeof name !== 'string' || name === '') {
      throw new TypeError(`ResourceID needs a non-empty name, got ${JSON.stringify(name)}`);
    }
    const ns = namespace === '' ? undefined : namespace;
    return new ResourceID(name, ns, ResourceID.keyOf(name, ns));
  }

  /**
   * The ID of an object, from `metadata.name` and `metadata.namespace`.
   * @throws {InvalidResourceError} when the object has no metadata or no name.
   */
  static fromResource(obj: KubernetesObject): ResourceID {
    const meta = obj?.metadata;
    if (meta === null || typeof meta !== 'object') {
      throw new InvalidResourceError(undefined, 'metadata', 'object has no metadata');
    }
    if (typeof meta.name !== 'string' || meta.name === '') {
      throw new InvalidResourceError(undefined, 'metadata.name', 'object has no name');
    }
    if (meta.namespace !== undefined && typeof meta.namespace !== 'string') {
      throw new InvalidResourceError(meta.name, 'metadata.namespace', `namespace must be a string, got ${typeof meta.namespace}`);
    }
    return ResourceID.of(meta.name, meta.namespace);
  }

  /** The store key of an object without allocating an ID: `namespace/name` or `name`. */
  static keyOfResource(obj: KubernetesObject): string {
    const meta = obj.metadata;
    if (
      meta === undefined ||
      typeof meta.name !== 'string' ||
      meta.name === '' ||
      (meta.namespace !== undefined && typeof meta.namespace !== 'string')
    ) {
      return ResourceID.fromResource(obj).key; // throws the descriptive error
    }
    return ResourceID.keyOf(meta.name, meta.namespace || undefined);
  }

  /** The store key for a name and optional namespace. */
  static keyOf(name: string, namespace?: string): string {
    return namespace ? `${namespace}/${name}` : name;
  }

  /**
   * The namespace part of a key produced by {@link ResourceID.key}, undefined for a
   * cluster-scoped `name`; for routing a key to its namespace without allocating an ID.
   *
   * @example
   * ```ts
   * import { ResourceID } from '@kindex/core';
   * ResourceID.namespaceOfKey('team-a/my-cluster'); // 'team-a'
   * ResourceID.namespaceOfKey('my-node'); // undefined
   * ```
   */
  static namespaceOfKey(key: string): string | undefined {
    const slash = key.indexOf('/');
    return slash < 0 ? undefined : key.slice(0, slash);
  }

  /** Parses a key produced by {@link ResourceID.key}. */
  static parse(key: string): ResourceID {
    const slash = key.indexOf('/');
    return slash < 0 ? ResourceID.of(key) : ResourceID.of(key.slice(slash + 1), key.slice(0, slash));
  }

  /** Value equality by key, so two IDs of the same object match wherever they were built (immutable.js uses it with {@link hashCode}). */
  equals(other: unknown): boolean {
    return other instanceof ResourceID && other.key === this.key;
  }

  /** Hash for immutable.js value equality (string hash of the key). */
  hashCode(): number {
    let h = 0;
    for (let i = 0; i < this.key.length; i++) h = (Math.imul(31, h) + this.key.charCodeAt(i)) | 0;
    return h;
  }

  /** The key (`namespace/name` or `name`), so an ID reads well in log lines and error messages. */
  toString(): string {
    return this.key;
  }
}

/**
 * An object that cannot be handled because a field is missing or of the wrong type.
 *
 * @example
 * ```ts
 * import { InvalidResourceError, ResourceID, type KubernetesObject } from '@kindex/core';
 * declare const fromWebhook: KubernetesObject;
 *
 * try {
 *   ResourceID.fromResource(fromWebhook);
 * } catch (error) {
 *   if (error instanceof InvalidResourceError) console.warn(`skipping ${error.objectKey ?? '(unnamed)'}: bad ${error.field}`);
 *   else throw error;
 * }
 * ```
 */
export class InvalidResourceError extends Error {
  override readonly name = 'InvalidResourceError';
  readonly code = 'KINDEX_INVALID_RESOURCE';
  /** `namespace/name` of the object when known. */
  readonly objectKey: string | undefined;
  /** Path of the offending field, for example `metadata.ownerReferences[1].kind`. */
  readonly field: string;

  constructor(objectKey: string | undefined, field: string, problem: string, options?: { cause?: unknown }) {
    super(`${objectKey ? `object ${objectKey}` : 'object'}: ${field}: ${problem}`, options);
    this.objectKey = objectKey;
    this.field = field;
  }
}
