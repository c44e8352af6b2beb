// What a verb on stored objects is given: one request addressed to a resource after routing and
// body parsing, the admission points around its write, and the hooks other stages run there.

import type { Json, StoredObject } from '../storage/object-store.js';
import type { ResourceType } from '../storage/resource-registry.js';

/** One request addressed to a resource, after routing and body parsing. */
export interface ResourceRequest {
  readonly type: ResourceType;
  readonly version: string;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
  readonly query: URLSearchParams;
  /** The parsed JSON body, when there is one. */
  readonly body: unknown;
  readonly contentType: string | undefined;
  /** `dryRun=All`: validate and answer as if written, but change nothing. */
  readonly dryRun?: boolean;
  /** The User-Agent header: writes without `?fieldManager=` are recorded under its product name. */
  readonly userAgent?: string;
  /** Paths of keys the JSON body repeats (JSON.parse kept the last value). Defaults to none. */
  readonly duplicateFields?: readonly string[];
  /** Admission webhooks around the write (admitted-write.ts). Defaults to admitting it as it is. */
  readonly admission?: WriteAdmission;
  /**
   * The version the client asked for, when the verb runs on the storage version because a
   * conversion webhook converts between them (converted-request.ts): admission sees it.
   * Defaults to `version`.
   */
  readonly requestedVersion?: string;
  /**
   * Checks the object a create, update, patch or apply is about to write, with the object it
   * replaces, before validation (RBAC escalation prevention); may throw ApiStatusError. Defaults to none.
   */
  readonly admit?: (next: Json, old: Json | undefined) => void;
}

/**
 * The points of a write where kube-apiserver runs admission. Each may throw to stop the write
 * before anything is stored (it is then run again).
 */
export interface WriteAdmission {
  /** Mutating admission: the object as the webhooks leave it. */
  mutate(operation: 'CREATE' | 'UPDATE', object: Json, old: Readonly<Json> | undefined): Json;
  /** Validating admission of the object about to be stored. */
  validate(operation: 'CREATE' | 'UPDATE' | 'DELETE', object: Readonly<Json> | undefined, old: Readonly<Json> | undefined): void;
  /** The value `make` gave the first time in this request: generated values stay the same when the write is run again. */
  once<T>(key: string, make: () => T): T;
}

/** Hooks other parts of the server run around writes (CRD serving, garbage collection). */
export interface WriteHooks {
  /** Validates and completes an object before it is stored (CRDs). May throw ApiStatusError. */
  beforeWrite?(type: ResourceType, draft: Json, old: StoredObject | undefined): void;
  /**
   * A copy of an object about to be marked for deletion, with what its kind adds then (a CRD's
   * cleanup finalizer and Terminating condition); undefined when the kind adds nothing.
   */
  markForDeletion?(type: ResourceType, obj: Readonly<Json>): Json | undefined;
  /** Runs after an object was stored or removed. */
  afterWrite?(type: ResourceType, stored: StoredObject | undefined, removed: StoredObject | undefined): void;
}

/**
 * A value generated once per request, however often admission runs the write (admitted-write.ts).
 */
export function once<T>(req: ResourceRequest, key: string, make: () => T): T {
  return req.admission === undefined ? make() : req.admission.once(key, make);
}

/** The key of an object of a type in the object store. */
export function keyOf(type: ResourceType, namespace: string | undefined, name: string): string {
  return type.namespaced ? `${namespace ?? ''}/${name}` : name;
}
