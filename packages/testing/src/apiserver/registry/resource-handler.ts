// The verbs on resources: get, list, create, update, patch, delete and their status subresource
// variants, with kube-apiserver's semantics (optimistic concurrency, generation, finalizers,
// status isolation, namespaces that must exist). Watches are opened here and streamed by WatchHub.

import { randomUUID } from 'node:crypto';
import { LabelSelector, ShardSelector, dnsSubdomainErrors, labelValueErrors, qualifiedNameErrors } from '@kindex/core';
import type { FieldSelector } from '@kindex/core';
import { parseFieldSelector } from '../storage/field-selectors.js';
import { pruneObject, validateObject } from '../custom-resource-schema.js';
import { defaultDeployment } from './deployment-defaults.js';
import { foldStringData, kindCauses, updateCauses } from './kind-validation.js';
import { defaultPod } from './pod-defaults.js';
import { omitEmpty } from './omit-empty.js';
import { defaultObject } from '../schema-defaulting.js';
import { defaultService } from './service-defaults.js';
import { defaultWebhookConfiguration } from './webhook-configuration-defaults.js';
import { defaultEndpointSlice } from './endpoint-slice.js';
import { jsonEqual } from '@kindex/core';
import { finalizersOf, metaOf, nowTimestamp } from '../machinery/object-meta.js';
import { objectJson, type Json, type ObjectStore, type StoredObject } from '../storage/object-store.js';
import { applyPatch, patchTypeOf } from '../machinery/patch.js';
import { fieldSchemaOf, type FieldSchema } from '../field-schema.js';
import { decodeFields, fieldValidationOf, strictDecodingError, unknownFieldWarnings } from './field-validation.js';
import {
  applyConfiguration,
  fieldsOfConfig,
  pruneMissing,
  readManagedFields,
  sameManagedFields,
  stripSet,
  updateEntries,
  writeManagedFields,
  type ManagedEntry,
} from './managed-fields.js';
import { deleteOptionsCauses, optionsError } from '../machinery/request-options.js';
import type { ResourceRegistry, ResourceType } from '../storage/resource-registry.js';
import {
  ApiStatusError,
  MODIFIED_CONFLICT,
  alreadyExists,
  badRequest,
  conflict,
  expired,
  invalid,
  methodNotAllowed,
  notFound,
  type StatusCause,
} from '../storage/status-error.js';
import { apiVersionOf, matchesSpec } from '../watch/watch-hub.js';

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

/** A finished response: HTTP status and JSON text. */
export interface JsonResponse {
  readonly status: number;
  readonly body: string;
  /** Texts of `Warning: 299` headers (unknown fields under fieldValidation=Warn). */
  readonly warnings?: readonly string[];
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

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';
const IMMORTAL_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);
const DNS_LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_RE = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

// A value generated once per request, however often admission runs the write (admitted-write.ts).
function once<T>(req: ResourceRequest, key: string, make: () => T): T {
  return req.admission === undefined ? make() : req.admission.once(key, make);
}

function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
  return s;
}

function rbacNameErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

function nameErrors(type: ResourceType, name: string): string[] {
  if (type.id === '/namespaces') {
    return name.length <= 63 && DNS_LABEL_RE.test(name)
      ? []
      : [
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ];
  }
  if (type.id === '/services') {
    return name.length <= 63 && DNS1035_RE.test(name)
      ? []
      : [
          "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        ];
  }
  // RBAC objects are named like path segments (`system:discovery`), as kube-apiserver's ValidateRBACName.
  if (type.group === 'rbac.authorization.k8s.io') return rbacNameErrors(name);
  return dnsSubdomainErrors(name);
}

/** The verbs of the embedded server on stored objects. */
export class ResourceHandler {
  hooks: WriteHooks = {};
  /** Whether `shardSelector` is honoured (the `ShardedListAndWatch` gate); ignored when false. */
  shardedListAndWatch = true;

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
  ) {}

  /** The key of an object of a type. */
  static keyOf(type: ResourceType, namespace: string | undefined, name: string): string {
    return type.namespaced ? `${namespace ?? ''}/${name}` : name;
  }

  /** GET of one object or its status. */
  get(req: ResourceRequest): JsonResponse {
    const stored = this.mustGet(req.type, req.namespace, req.name!);
    return this.objectResponse(200, req, stored);
  }

  /** Parses label, field and shard selectors of a list or watch (400 when invalid). */
  selectors(req: ResourceRequest): {
    labels: LabelSelector;
    fields: FieldSelector;
    shards: { selector: ShardSelector; text: string } | undefined;
  } {
    let labels: LabelSelector;
    try {
      labels = LabelSelector.parse(req.query.get('labelSelector') ?? '');
    } catch (e) {
      throw badRequest((e as Error).message);
    }
    let fieldText = req.query.get('fieldSelector') ?? '';
    if (req.name !== undefined) fieldText = fieldText === '' ? `metadata.name=${req.name}` : `${fieldText},metadata.name=${req.name}`;
    return { labels, fields: parseFieldSelector(req.type, fieldText), shards: this.shardSelector(req) };
  }

  // A server without the gate drops the parameter before parsing it: no 400, no filtering.
  private shardSelector(req: ResourceRequest): { selector: ShardSelector; text: string } | undefined {
    const text = req.query.get('shardSelector');
    if (!this.shardedListAndWatch || text === null || text === '') return undefined;
    try {
      return { selector: ShardSelector.parse(text), text };
    } catch (e) {
      // kube-apiserver 1.36.3 answers 500 without a reason here, not 400: the parse error of the
      // ListOptions conversion reaches the handler as a plain error. Matched, wording included.
      throw new ApiStatusError(500, '', `invalid shard selector: ${(e as Error).message}`);
    }
  }

  /** LIST with selectors and limit/continue pagination. */
  list(req: ResourceRequest): JsonResponse {
    const t = req.type;
    const { labels, fields, shards } = this.selectors(req);
    const limitText = req.query.get('limit');
    const limit = limitText === null || limitText === '' ? 0 : Number(limitText);
    if (!Number.isInteger(limit) || limit < 0) throw badRequest(`invalid limit: ${limitText}`);
    let listRv = this.store.resourceVersion;
    let afterKey: string | undefined;
    const token = req.query.get('continue');
    if (token !== null && token !== '') {
      const decoded = decodeContinue(token);
      if (decoded.rv < this.store.oldestResumable) {
        throw expired(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        );
      }
      listRv = decoded.rv;
      afterKey = decoded.start;
    } else {
      listRv = this.listResourceVersion(req.query);
    }
    const apiVersion = apiVersionOf(t, req.version);
    const spec = { type: t, namespace: req.namespace, labels, fields, shards: shards?.selector };
    const filtered = !labels.isEmpty() || !fields.isEmpty() || shards !== undefined;
    const items: string[] = [];
    let lastKey: string | undefined;
    let more = false;
    const source =
      listRv === this.store.resourceVersion
        ? this.store.list(t.id, req.namespace, afterKey)
        : this.store.listAt(t.id, listRv, req.namespace, afterKey);
    for (const o of source) {
      if (filtered && !matchesSpec(spec, o.obj)) continue;
      if (limit > 0 && items.length === limit) {
        more = true;
        break;
      }
      // Typed (built-in) list items carry no kind/apiVersion on the real server; unstructured ones do.
      items.push(t.custom ? objectJson(o, t.kind, apiVersion) : o.body);
      lastKey = o.key;
    }
    const meta: Json = { resourceVersion: String(listRv) };
    if (more && lastKey !== undefined) {
      meta['continue'] = encodeContinue(listRv, lastKey);
      if (!filtered) meta['remainingItemCount'] = this.store.countAfter(t.id, req.namespace, lastKey);
    }
    // The echo tells the client the server filtered; without it the client must filter itself.
    if (shards !== undefined) meta['shardInfo'] = { selector: shards.text };
    const head = `{"kind":${JSON.stringify(t.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(meta)},"items":[`;
    return { status: 200, body: `${head}${items.join(',')}]}` };
  }

  // resourceVersion on a list: unset or "0" and NotOlderThan read the latest state (never older
  // than asked); Exact reads the snapshot at that version; a version from the future is a 504.
  private listResourceVersion(query: URLSearchParams): number {
    const current = this.store.resourceVersion;
    const text = query.get('resourceVersion');
    if (text === null || text === '' || text === '0') return current;
    if (!/^\d+$/.test(text)) throw badRequest(`invalid resource version: ${text}`);
    const rv = Number(text);
    if (rv > current) {
      throw new ApiStatusError(504, 'Timeout', `Timeout: Too large resource version: ${rv}, current: ${current}`, {
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        retryAfterSeconds: 1,
      });
    }
    if (query.get('resourceVersionMatch') !== 'Exact') return current;
    if (rv < this.store.oldestResumable) throw expired(`too old resource version: ${rv} (${this.store.oldestResumable})`);
    return rv;
  }

  /** POST: creates an object (name or generateName). */
  create(req: ResourceRequest): JsonResponse {
    if (req.type.namespaced && req.namespace === undefined) throw methodNotAllowed();
    const draft = this.checkBody(req);
    const warnings = this.dropUnknownFields(req, draft);
    return { ...this.createObject(req, draft), warnings };
  }

  // Drops the fields the kind does not declare; under Strict they fail the write (400, as the
  // decoder reports them), under Warn they come back as warnings.
  private dropUnknownFields(req: ResourceRequest, draft: Json): string[] {
    const { unknown, error } = decodeFields(draft, req.type, req.version);
    if (error !== undefined) throw cannotDecode(req.type, req.version, error);
    const duplicates = req.duplicateFields ?? [];
    if (unknown.length === 0 && duplicates.length === 0) return [];
    const mode = fieldValidationOf(req.query);
    if (mode === 'Strict') throw cannotDecode(req.type, req.version, strictDecodingError(unknown, duplicates));
    return mode === 'Warn' ? unknownFieldWarnings(unknown, duplicates) : [];
  }

  // Creates `draft`; `applied` holds the fields of a create-by-apply, else the write is an Update.
  private createObject(req: ResourceRequest, draft: Json, applied?: ManagedEntry): JsonResponse {
    req.admit?.(draft, undefined);
    const t = req.type;
    let meta = metaOf(draft);
    draft['metadata'] = meta;
    if (t.namespaced) meta['namespace'] = req.namespace;
    else delete meta['namespace'];
    const schema = t.schemas?.[req.version];
    if (req.admission !== undefined) {
      // Webhooks see the object as decoded (pruned and defaulted), before a name is generated.
      if (schema !== undefined) pruneAndDefault(draft, schema);
      draft = req.admission.mutate('CREATE', draft, undefined);
      meta = metaOf(draft);
      draft['metadata'] = meta;
      if (t.namespaced) meta['namespace'] = req.namespace;
    }
    if (typeof meta['name'] !== 'string' || meta['name'] === '') {
      const gen = meta['generateName'];
      if (typeof gen !== 'string' || gen === '') {
        throw invalid(t.kind, t.custom ? t.group : '', '', [
          { reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' },
        ]);
      }
      meta['name'] = once(req, 'name', () => `${gen.slice(0, 58)}${randomSuffix()}`);
    }
    const name = meta['name'] as string;
    if (schema !== undefined) pruneAndDefault(draft, schema);
    this.validateMeta(t, draft, name, schema);
    if (t.namespaced) this.checkNamespaceOpen(t, req.namespace!, name);
    const key = ResourceHandler.keyOf(t, req.namespace, name);
    if (this.store.get(t.id, key) !== undefined) throw alreadyExists(t.resource, t.group, name);
    meta['uid'] = once(req, 'uid', randomUUID);
    meta['creationTimestamp'] = once(req, 'creationTimestamp', nowTimestamp);
    delete meta['deletionTimestamp'];
    delete meta['deletionGracePeriodSeconds'];
    delete meta['resourceVersion'];
    if (t.generation !== 'none') meta['generation'] = 1;
    else delete meta['generation'];
    this.defaultOnCreate(t, draft);
    req.admission?.validate('CREATE', draft, undefined);
    this.hooks.beforeWrite?.(t, draft, undefined);
    const entries =
      applied !== undefined ? [applied] : updateEntries([], undefined, draft, this.fieldSchema(t, req.version), this.updater(req));
    writeManagedFields(draft, entries);
    return this.objectResponse(201, req, this.write(t, key, draft, 'create', req.dryRun === true));
  }

  /** PUT of an object or of its status. */
  update(req: ResourceRequest): JsonResponse {
    const draft = this.checkBody(req);
    const warnings = this.dropUnknownFields(req, draft);
    const result = this.applyUpdate(req, draft);
    return { ...this.objectResponse(200, req, result), warnings };
  }

  /** PATCH of an object or of its status. */
  patch(req: ResourceRequest): JsonResponse {
    const t = req.type;
    const patchType = patchTypeOf(req.contentType, t.custom);
    if (patchType === 'apply') return this.apply(req);
    if (req.query.has('force')) {
      throw invalid('PatchOptions', 'meta.k8s.io', '', [
        { reason: 'FieldValueForbidden', field: 'force', message: 'Forbidden: may not be specified for non-apply patch' },
      ]);
    }
    const existing = this.mustGet(t, req.namespace, req.name!);
    const patched = applyPatch(existing.obj, patchType, req.body);
    const warnings = this.dropUnknownPatchedFields(req, patchType, patched);
    // A patch may not change what it addresses; kind/apiVersion come from the path.
    patched['kind'] = t.kind;
    patched['apiVersion'] = apiVersionOf(t, req.version);
    const meta = metaOf(patched);
    patched['metadata'] = meta;
    if (meta['name'] === undefined) meta['name'] = req.name;
    if (t.namespaced && meta['namespace'] === undefined) meta['namespace'] = req.namespace;
    return { ...this.objectResponse(200, req, this.applyUpdate(req, patched, existing)), warnings };
  }

  // A patch's unknown fields are those of the patched object; under Strict kube-apiserver reports
  // them as an invalid `patch` showing the patch (strategic) or the patched object (merge, JSON).
  private dropUnknownPatchedFields(req: ResourceRequest, patchType: string, patched: Json): string[] {
    const mode = fieldValidationOf(req.query);
    const before = structuredClone(patched);
    const { unknown, error } = decodeFields(patched, req.type, req.version);
    // A value the decoder cannot read (a MicroTime) fails the patch in every mode.
    const failure = error ?? (mode === 'Strict' && unknown.length > 0 ? strictDecodingError(unknown) : undefined);
    if (failure !== undefined) {
      const shown = patchType === 'strategic' ? goValue(req.body) : JSON.stringify(sortedKeys(before));
      throw invalid('', '', '', [
        { reason: 'FieldValueInvalid', field: 'patch', message: `Invalid value: ${JSON.stringify(shown)}: ${failure}` },
      ]);
    }
    return mode === 'Warn' ? unknownFieldWarnings(unknown) : [];
  }

  /**
   * Server-side apply (`application/apply-patch+yaml`): merges the configuration into the object
   * by field ownership, or creates it (201) when missing.
   */
  apply(req: ResourceRequest): JsonResponse {
    const t = req.type;
    const manager = req.query.get('fieldManager') ?? '';
    if (manager === '') {
      throw invalid('PatchOptions', 'meta.k8s.io', '', [
        { reason: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' },
      ]);
    }
    this.checkFieldManager(manager);
    const forceText = req.query.get('force');
    if (forceText !== null && forceText !== 'true' && forceText !== 'false') throw badRequest(`invalid force: ${forceText}`);
    const body = req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw badRequest('error decoding patch: the apply configuration must be an object');
    const kind = (body as Json)['kind'];
    const apiVersion = (body as Json)['apiVersion'];
    if (typeof kind !== 'string' || kind === '' || typeof apiVersion !== 'string' || apiVersion === '') {
      const [g, v] =
        typeof apiVersion === 'string' && apiVersion.includes('/')
          ? apiVersion.split('/', 2)
          : ['', typeof apiVersion === 'string' ? apiVersion : ''];
      throw badRequest(`invalid object type: ${g}/${v}, Kind=${typeof kind === 'string' ? kind : ''}`);
    }
    const config = this.checkBody(req);
    const meta = metaOf(config);
    if (meta['name'] !== req.name) {
      const bodyName = meta['name'];
      throw badRequest(
        `the name of the object (${typeof bodyName === 'string' ? bodyName : ''}) does not match the name on the URL (${req.name})`,
      );
    }
    // An apply configuration naming an undeclared field cannot become a typed patch: kube-apiserver
    // answers 500 whatever fieldValidation says.
    const { unknown, error } = decodeFields(config, t, req.version);
    const ns = metaOf(config)['namespace'];
    const target = `(${typeof ns === 'string' ? ns : ''}/${req.name}; ${t.group}/${req.version}, Kind=${t.kind})`;
    if (unknown.length > 0) {
      throw new ApiStatusError(500, '', `failed to create typed patch object ${target}: .${unknown[0]}: field not declared in schema`);
    }
    if (error !== undefined) {
      throw new ApiStatusError(
        500,
        '',
        `failed to convert new object ${target} to proper version: unable to convert unstructured object to ${t.group}/${req.version}, Kind=${t.kind}: ${error}`,
      );
    }
    const fieldSchema = this.fieldSchema(t, req.version);
    const apiVersionOut = apiVersionOf(t, req.version);
    const existing = this.store.get(t.id, ResourceHandler.keyOf(t, req.namespace, req.name!));
    if (existing === undefined) {
      if (req.subresource !== undefined || (t.namespaced && req.namespace === undefined)) throw notFound(t.resource, t.group, req.name!);
      const fields = fieldsOfConfig(config, fieldSchema);
      stripSet(fields, undefined, t.statusSubresource);
      const entry: ManagedEntry = {
        manager,
        operation: 'Apply',
        apiVersion: apiVersionOut,
        subresource: undefined,
        time: nowTimestamp(),
        fields,
      };
      return this.createObject(req, config, entry);
    }
    // Only the part of the configuration the addressed (sub)resource can write takes part.
    if (req.subresource === 'status') {
      for (const k of Object.keys(config)) if (!['apiVersion', 'kind', 'metadata', 'status'].includes(k)) delete config[k];
    } else if (t.statusSubresource) {
      delete config['status'];
    }
    const { object, entries } = applyConfiguration(existing.obj, config, fieldSchema, {
      manager,
      apiVersion: apiVersionOut,
      subresource: req.subresource,
      force: forceText === 'true',
      statusIsSubresource: t.statusSubresource,
    });
    object['kind'] = t.kind;
    object['apiVersion'] = apiVersionOf(t, req.version);
    const m = metaOf(object);
    object['metadata'] = m;
    writeManagedFields(object, entries);
    return this.objectResponse(200, req, this.applyUpdate(req, object, existing, false, entries));
  }

  /** DELETE with preconditions, propagation policy and finalizers. */
  delete(req: ResourceRequest): JsonResponse {
    const t = req.type;
    const existing = this.mustGet(t, req.namespace, req.name!);
    // NamespaceLifecycle admission: the system namespaces cannot be deleted.
    if (t.id === '/namespaces' && IMMORTAL_NAMESPACES.has(req.name!)) {
      throw new ApiStatusError(403, 'Forbidden', `namespaces "${req.name}" is forbidden: this namespace may not be deleted`, {
        name: req.name!,
        group: '',
        kind: 'namespaces',
      });
    }
    const options = deleteOptionsOf(req);
    const pre = (options['preconditions'] ?? {}) as Json;
    const meta = metaOf(existing.obj);
    if (typeof pre['uid'] === 'string' && pre['uid'] !== meta['uid']) {
      throw conflict(
        t.resource,
        t.group,
        req.name!,
        `Precondition failed: UID in precondition: ${pre['uid']}, UID in object meta: ${String(meta['uid'])}`,
      );
    }
    if (typeof pre['resourceVersion'] === 'string' && pre['resourceVersion'] !== meta['resourceVersion']) {
      throw conflict(
        t.resource,
        t.group,
        req.name!,
        `Precondition failed: ResourceVersion in precondition: ${pre['resourceVersion']}, ResourceVersion in object meta: ${String(meta['resourceVersion'])}`,
      );
    }
    const policy = propagationPolicyOf(options);
    const graceText = req.query.get('gracePeriodSeconds') ?? (options['gracePeriodSeconds'] as number | undefined);
    const grace = graceText === undefined || graceText === null || graceText === '' ? undefined : Number(graceText);
    if (grace !== undefined && !(Number.isInteger(grace) && grace >= 0))
      throw badRequest(`invalid gracePeriodSeconds: ${String(graceText)}`);
    const dryRun = req.dryRun === true;
    const result = this.deleteObject(t, existing, policy, grace, dryRun);
    // Held by finalizers: the answer is the object, now carrying its deletionTimestamp.
    const held = dryRun
      ? result !== existing || metaOf(existing.obj)['deletionTimestamp'] !== undefined
      : this.store.get(t.id, existing.key) !== undefined;
    if (result !== undefined && held) return this.objectResponse(200, req, result);
    if (t.returnDeletedObject) return this.objectResponse(200, req, result ?? existing);
    return {
      status: 200,
      body: JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name: req.name, ...(t.group === '' ? {} : { group: t.group }), kind: t.resource, uid: meta['uid'] },
      }),
    };
  }

  /** DELETE on a collection: deletes every object matching the selectors, as DELETE would each. */
  deleteCollection(req: ResourceRequest): JsonResponse {
    const t = req.type;
    // kube-apiserver's namespace storage has no DeleteCollection.
    if (t.id === '/namespaces') throw methodNotAllowed();
    const { labels, fields } = this.selectors(req);
    const spec = { type: t, namespace: req.namespace, labels, fields };
    const policy = propagationPolicyOf(deleteOptionsOf(req));
    const doomed = [...this.store.list(t.id, req.namespace)].filter((o) => matchesSpec(spec, o.obj));
    // Object by object, in key order, as kube-apiserver's DeleteCollection worker goes: admit one,
    // delete one; a refusal stops there and leaves the objects deleted before it deleted. The
    // objects a replayed pass (admitted-write.ts) already deleted are not admitted again, though
    // one held by finalizers is still listed.
    const done = once(req, 'deletecollection', () => new Set<string>());
    for (const o of doomed) {
      const uid = String(metaOf(o.obj)['uid']);
      if (done.has(uid)) continue;
      req.admission?.validate('DELETE', undefined, o.obj);
      this.deleteObject(t, o, policy, undefined, req.dryRun === true);
      done.add(uid);
    }
    return { status: 200, body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' }) };
  }

  /**
   * Deletes an object the way DELETE does, for the API and for the garbage collector: objects
   * with finalizers (or a Foreground policy) get a deletionTimestamp and stay until the last
   * finalizer goes; others are removed. Returns the held object or the removed one.
   */
  deleteObject(
    t: ResourceType,
    existing: StoredObject,
    policy: 'Background' | 'Foreground' | 'Orphan' = 'Background',
    gracePeriodSeconds?: number,
    dryRun = false,
  ): StoredObject | undefined {
    const meta = metaOf(existing.obj);
    const marked = meta['deletionTimestamp'] === undefined ? this.hooks.markForDeletion?.(t, existing.obj) : undefined;
    const finalizers = finalizersOf(marked ?? existing.obj);
    const extra = policy === 'Foreground' ? 'foregroundDeletion' : policy === 'Orphan' ? 'orphan' : undefined;
    const isNamespace = t.id === '/namespaces';
    const grace = podGracePeriod(t, existing.obj, gracePeriodSeconds);
    // A scheduled pod waits for its kubelet; there is none, so only a 0-second delete removes it.
    if (meta['deletionTimestamp'] !== undefined && grace === 0 && finalizers.length === 0 && extra === undefined && !isNamespace) {
      return this.remove(t, existing, dryRun);
    }
    // Pods always take the graceful path: their deletion is first written (deletionTimestamp,
    // generation + 1, a MODIFIED event), then carried out at once when the grace period is 0.
    const isPod = t.id === '/pods';
    if (finalizers.length > 0 || extra !== undefined || isNamespace || grace > 0 || (isPod && meta['deletionTimestamp'] === undefined)) {
      const draft = marked ?? structuredClone(existing.obj);
      const m = metaOf(draft);
      let changed = marked !== undefined;
      if (extra !== undefined && !finalizers.includes(extra)) {
        m['finalizers'] = [...finalizers, extra];
        changed = true;
      }
      if (meta['deletionTimestamp'] === undefined) {
        m['deletionTimestamp'] = new Date(Date.now() + grace * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
        if (!isNamespace) m['deletionGracePeriodSeconds'] = grace;
        if (typeof m['generation'] === 'number') m['generation'] = m['generation'] + 1;
        changed = true;
      }
      if (isNamespace) {
        const status = (draft['status'] ?? {}) as Json;
        if (status['phase'] !== 'Terminating') {
          draft['status'] = { ...status, phase: 'Terminating' };
          changed = true;
        }
      }
      if (!changed) return existing;
      const stored = this.write(t, existing.key, draft, 'update', dryRun);
      if (isPod && grace === 0 && finalizersOf(stored.obj).length === 0) return dryRun ? stored : this.remove(t, existing, false);
      return stored;
    }
    return this.remove(t, existing, dryRun);
  }

  // Every write of the verbs goes through here, so that a dry run stops short of the store.
  private write(t: ResourceType, key: string, draft: Json, mode: 'create' | 'update', dryRun: boolean): StoredObject {
    if (!t.custom) omitEmpty(draft, { group: t.group, version: t.storageVersion, kind: t.kind });
    if (dryRun) {
      const { kind: _k, apiVersion: _a, ...rest } = draft;
      const rv = metaOf(draft)['resourceVersion'];
      return { obj: draft, body: JSON.stringify(rest), rv: typeof rv === 'string' ? Number(rv) : 0, key };
    }
    const stored = mode === 'create' ? this.store.create(t, key, draft) : this.store.update(t, key, draft);
    this.hooks.afterWrite?.(t, stored, undefined);
    return stored;
  }

  private remove(t: ResourceType, existing: StoredObject, dryRun: boolean): StoredObject | undefined {
    if (dryRun) return existing;
    const removed = this.store.delete(t, existing.key);
    this.hooks.afterWrite?.(t, undefined, removed);
    return removed;
  }

  /** Replaces an existing object, for the garbage collector's own writes (finalizers, owners). */
  rewrite(t: ResourceType, existing: StoredObject, draft: Json): StoredObject | undefined {
    const req: ResourceRequest = {
      type: t,
      version: t.storageVersion,
      namespace: metaOf(existing.obj)['namespace'] as string | undefined,
      name: metaOf(existing.obj)['name'] as string,
      subresource: undefined,
      query: new URLSearchParams(),
      body: undefined,
      contentType: undefined,
    };
    return this.applyUpdate(req, draft, existing, true);
  }

  private applyUpdate(req: ResourceRequest, draft: Json, current?: StoredObject, internal = false, applied?: ManagedEntry[]): StoredObject {
    const t = req.type;
    if (req.admission !== undefined) {
      const target = current ?? this.mustGet(t, req.namespace, req.name!);
      draft = req.admission.mutate('UPDATE', draft, target.obj);
    }
    const meta = metaOf(draft);
    draft['metadata'] = meta;
    const bodyName = meta['name'];
    if (bodyName !== req.name) {
      throw badRequest(
        `the name of the object (${typeof bodyName === 'string' ? bodyName : ''}) does not match the name on the URL (${req.name})`,
      );
    }
    const existing = current ?? this.mustGet(t, req.namespace, req.name!);
    const old = existing.obj;
    req.admit?.(draft, old);
    const oldMeta = metaOf(old);
    const rv = meta['resourceVersion'];
    if (rv !== undefined && rv !== '' && rv !== oldMeta['resourceVersion']) {
      throw conflict(t.resource, t.group, req.name!, MODIFIED_CONFLICT);
    }
    let next: Json;
    if (req.subresource === 'status') {
      // Writes to /status change only status (the rest comes from the stored object).
      next = structuredClone(old);
      if (draft['status'] === undefined) delete next['status'];
      else next['status'] = draft['status'];
      const schema = t.schemas?.[req.version];
      if (schema !== undefined) {
        pruneAndDefault(next, schema);
        const causes = validateObject(next, schema, old);
        if (causes.length > 0) throw invalid(t.kind, t.group, req.name!, causes);
      }
    } else {
      next = draft;
      const schema = t.schemas?.[req.version];
      if (schema !== undefined) pruneAndDefault(next, schema);
      this.validateMeta(t, next, req.name!, schema, old);
      // Writes to the main resource ignore status when status is a subresource.
      if (t.statusSubresource) {
        if (old['status'] === undefined) delete next['status'];
        else next['status'] = structuredClone(old['status']);
      }
      const m = metaOf(next);
      for (const k of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'namespace']) {
        if (oldMeta[k] === undefined) delete m[k];
        else m[k] = oldMeta[k];
      }
      if (!internal && oldMeta['deletionTimestamp'] !== undefined) {
        const before = new Set(finalizersOf(old));
        const added = finalizersOf(next).filter((f) => !before.has(f));
        if (added.length > 0) {
          throw invalid(t.kind, t.custom ? t.group : '', req.name!, [
            {
              reason: 'FieldValueForbidden',
              field: 'metadata.finalizers',
              message: 'Forbidden: no new finalizers can be added if the object is being deleted',
            },
          ]);
        }
      }
      const restricted = updateCauses(t.id, old, next);
      if (restricted.length > 0) throw invalid(t.kind, '', req.name!, restricted);
      if (t.generation !== 'none' && specChanged(t, old, next)) m['generation'] = ((oldMeta['generation'] as number | undefined) ?? 0) + 1;
    }
    next['kind'] = t.kind;
    next['apiVersion'] = apiVersionOf(t, t.storageVersion);
    const nm = metaOf(next);
    nm['resourceVersion'] = oldMeta['resourceVersion'];
    req.admission?.validate('UPDATE', next, old);
    this.hooks.beforeWrite?.(t, next, existing);
    const writer = this.recordManagedFields(req, old, next, internal, applied);
    // An update that changes nothing writes nothing, like the real server: no new resourceVersion, no event.
    if (jsonEqual(next, old)) return existing;
    // A write that changed the object (not only its owners) stamps its manager's entry with the time.
    if (writer !== undefined && !jsonEqual(withoutManagedFields(next), withoutManagedFields(old))) {
      const entries = readManagedFields(next);
      const own = entries.find(
        (e) => e.manager === writer.manager && e.operation === writer.operation && e.subresource === writer.subresource,
      );
      if (own !== undefined) {
        own.time = nowTimestamp();
        writeManagedFields(next, entries);
      }
    }
    if (
      oldMeta['deletionTimestamp'] !== undefined &&
      !(Number(oldMeta['deletionGracePeriodSeconds'] ?? 0) > 0) &&
      finalizersOf(next).length === 0 &&
      !(t.id === '/namespaces' && namespaceFinalizers(next).length > 0)
    ) {
      // The last finalizer is gone: the object is deleted now (watchers see DELETED).
      return this.remove(t, existing, req.dryRun === true) ?? existing;
    }
    return this.write(t, existing.key, next, 'update', req.dryRun === true);
  }

  // Sets next's managedFields: the applier's entries, or the writer's Update entry; returns who wrote.
  private recordManagedFields(
    req: ResourceRequest,
    old: Readonly<Json>,
    next: Json,
    internal: boolean,
    applied: ManagedEntry[] | undefined,
  ): Pick<ManagedEntry, 'manager' | 'operation' | 'subresource'> | undefined {
    const schema = this.fieldSchema(req.type, req.version);
    if (applied !== undefined) {
      // Fields the write could not keep (status isolation, pruning) are owned by nobody.
      const entries = applied.map((e) => ({ ...e, fields: e.fields.clone() }));
      pruneMissing(entries, next, schema);
      writeManagedFields(next, entries);
      return { manager: req.query.get('fieldManager') ?? '', operation: 'Apply', subresource: req.subresource };
    }
    const before = readManagedFields(old);
    const sent = metaOf(next)['managedFields'];
    // An update carrying other managedFields replaces them (an empty list means "unchanged", and a
    // list of empty entries clears them), as on the real server; the write itself is then not recorded.
    if (Array.isArray(sent) && sent.length > 0 && !sameManagedFields(sent, metaOf(old)['managedFields'])) {
      writeManagedFields(next, readManagedFields(next));
      return undefined;
    }
    const updater = internal ? { ...this.updater(req), manager: 'kube-controller-manager' } : this.updater(req);
    const entries = updateEntries(before, old, next, schema, updater);
    writeManagedFields(next, entries);
    return { manager: updater.manager, operation: 'Update', subresource: updater.subresource };
  }

  // Who an ordinary write is recorded for: `?fieldManager=`, else the User-Agent's product name.
  private updater(req: ResourceRequest): {
    manager: string;
    apiVersion: string;
    subresource: string | undefined;
    statusIsSubresource: boolean;
  } {
    const given = req.query.get('fieldManager');
    if (given !== null && given !== '') this.checkFieldManager(given);
    const manager = given !== null && given !== '' ? given : (req.userAgent ?? '').split('/')[0]!.slice(0, 128);
    return {
      manager,
      apiVersion: apiVersionOf(req.type, req.version),
      subresource: req.subresource,
      statusIsSubresource: req.type.statusSubresource,
    };
  }

  private checkFieldManager(manager: string): void {
    if (manager.length > 128) {
      throw invalid('PatchOptions', 'meta.k8s.io', '', [
        { reason: 'FieldValueTooLong', field: 'fieldManager', message: 'Too long: may not be more than 128 bytes' },
      ]);
    }
  }

  private fieldSchema(t: ResourceType, version: string): FieldSchema {
    return fieldSchemaOf(t.id, t.custom, t.schemas?.[version]);
  }

  private mustGet(t: ResourceType, namespace: string | undefined, name: string): StoredObject {
    const stored = this.store.get(t.id, ResourceHandler.keyOf(t, namespace, name));
    if (stored === undefined) throw notFound(t.resource, t.group, name);
    return stored;
  }

  private objectResponse(status: number, req: ResourceRequest, stored: StoredObject): JsonResponse {
    return { status, body: objectJson(stored, req.type.kind, apiVersionOf(req.type, req.version)) };
  }

  // The body of a create or update: an object whose kind, apiVersion and namespace fit the path.
  private checkBody(req: ResourceRequest): Json {
    const body = req.body;
    const t = req.type;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw badRequest('the body of the request must be a JSON object');
    }
    const draft = structuredClone(body) as Json;
    const expected = apiVersionOf(t, req.version);
    const json = JSON.stringify(body).slice(0, 200);
    // Typed decoding defaults a missing kind/apiVersion from the path; unstructured (custom) does not.
    if (!t.custom) {
      if (draft['kind'] === undefined || draft['kind'] === '') draft['kind'] = t.kind;
      if (draft['apiVersion'] === undefined || draft['apiVersion'] === '') draft['apiVersion'] = expected;
    }
    if (draft['kind'] === undefined || draft['kind'] === '') {
      throw badRequest(`the object provided is unrecognized (must be of type ${t.kind}): Object 'Kind' is missing in '${json}' (${json})`);
    }
    if (draft['apiVersion'] === undefined || draft['apiVersion'] === '') throw badRequest(`Object 'apiVersion' is missing in '${json}'`);
    if (draft['apiVersion'] !== expected) {
      throw badRequest(
        `the API version in the data (${String(draft['apiVersion'])}) does not match the expected API version (${expected})`,
      );
    }
    if (draft['kind'] !== t.kind) {
      throw badRequest(
        `${String(draft['kind'])} in version "${req.version}" cannot be handled as a ${t.kind}: no kind "${String(draft['kind'])}" is expected at ${expected}/${t.resource}`,
      );
    }
    const meta = draft['metadata'];
    if (meta !== undefined && (meta === null || typeof meta !== 'object' || Array.isArray(meta))) {
      throw badRequest('metadata must be an object');
    }
    const ns = (meta as Json | undefined)?.['namespace'];
    if (t.namespaced && ns !== undefined && ns !== '' && ns !== req.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    draft['apiVersion'] = apiVersionOf(t, t.storageVersion);
    return draft;
  }

  private validateMeta(t: ResourceType, obj: Json, name: string, schema?: Json, old?: Readonly<Json>): void {
    const causes: StatusCause[] = schema === undefined ? [] : validateObject(obj, schema, old);
    const meta = metaOf(obj);
    for (const msg of nameErrors(t, name)) {
      causes.push({ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: ${JSON.stringify(name)}: ${msg}` });
    }
    for (const field of ['labels', 'annotations'] as const) {
      const map = meta[field];
      if (map === undefined || map === null) continue;
      if (typeof map !== 'object' || Array.isArray(map)) {
        causes.push({ reason: 'FieldValueInvalid', field: `metadata.${field}`, message: 'Invalid value: must be a map of strings' });
        continue;
      }
      for (const [k, v] of Object.entries(map as Json)) {
        for (const msg of qualifiedNameErrors(k)) {
          causes.push({ reason: 'FieldValueInvalid', field: `metadata.${field}`, message: `Invalid value: ${JSON.stringify(k)}: ${msg}` });
        }
        if (typeof v !== 'string') {
          causes.push({ reason: 'FieldValueInvalid', field: `metadata.${field}.${k}`, message: 'Invalid value: must be a string' });
        } else if (field === 'labels') {
          for (const msg of labelValueErrors(v)) {
            causes.push({ reason: 'FieldValueInvalid', field: `metadata.labels`, message: `Invalid value: ${JSON.stringify(v)}: ${msg}` });
          }
        }
      }
    }
    const refs = meta['ownerReferences'];
    if (refs !== undefined && refs !== null) {
      if (!Array.isArray(refs)) {
        causes.push({ reason: 'FieldValueInvalid', field: 'metadata.ownerReferences', message: 'Invalid value: must be a list' });
      } else {
        if (refs.filter((r: unknown) => (r as Json | null)?.['controller'] === true).length > 1) {
          causes.push({
            reason: 'FieldValueInvalid',
            field: 'metadata.ownerReferences',
            message: 'Invalid value: only one reference can have Controller set to true',
          });
        }
        refs.forEach((r: unknown, i) => {
          const ref = (r ?? {}) as Json;
          for (const f of ['apiVersion', 'kind', 'name', 'uid']) {
            if (typeof ref[f] !== 'string' || ref[f] === '') {
              causes.push({ reason: 'FieldValueRequired', field: `metadata.ownerReferences[${i}].${f}`, message: 'Required value' });
            }
          }
        });
      }
    }
    causes.push(...kindCauses(t.id, obj));
    if (causes.length > 0) throw invalid(t.kind, t.group, name, causes);
    foldStringData(t.id, obj);
    defaultService(t.id, obj);
    defaultDeployment(t.id, obj);
    defaultWebhookConfiguration(t.id, obj);
    defaultEndpointSlice(t.id, obj);
  }

  private checkNamespaceOpen(t: ResourceType, namespace: string, name: string): void {
    const ns = this.store.get('/namespaces', namespace);
    if (ns === undefined) throw notFound('namespaces', '', namespace);
    if (metaOf(ns.obj)['deletionTimestamp'] !== undefined) {
      throw new ApiStatusError(
        403,
        'Forbidden',
        `${t.resource}${t.group ? `.${t.group}` : ''} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
        {
          name,
          group: t.group,
          kind: t.resource,
          causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
        },
      );
    }
  }

  private defaultOnCreate(t: ResourceType, draft: Json): void {
    if (t.custom && t.statusSubresource) delete draft['status'];
    if (t.id === '/namespaces') {
      const meta = metaOf(draft);
      meta['labels'] = { ...((meta['labels'] ?? {}) as Json), 'kubernetes.io/metadata.name': meta['name'] };
      draft['spec'] = { finalizers: ['kubernetes'] };
      draft['status'] = { phase: 'Active' };
    }
    if (t.id === '/pods') {
      defaultPod(draft);
      draft['status'] = { phase: 'Pending', qosClass: 'BestEffort' };
    }
    if (t.id === '/secrets' && draft['type'] === undefined) draft['type'] = 'Opaque';
  }

  /** The registry, for hooks that need to resolve other types. */
  get types(): ResourceRegistry {
    return this.registry;
  }
}

// The DeleteOptions of a DELETE: its query, overridden field by field by its body, as
// kube-apiserver decodes them; invalid ones are a 422 before anything is deleted.
function deleteOptionsOf(req: ResourceRequest): Json {
  const body =
    req.body !== undefined && req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Json) : {};
  const q = req.query;
  const options: Json = { ...body };
  if (options['propagationPolicy'] === undefined && q.has('propagationPolicy')) options['propagationPolicy'] = q.get('propagationPolicy');
  if (options['orphanDependents'] === undefined && q.has('orphanDependents'))
    options['orphanDependents'] = q.get('orphanDependents') === 'true';
  const dryRun = Array.isArray(options['dryRun']) ? (options['dryRun'] as unknown[]).map(String) : q.getAll('dryRun');
  const problem = optionsError(
    'DeleteOptions',
    deleteOptionsCauses({ orphanDependents: options['orphanDependents'], propagationPolicy: options['propagationPolicy'], dryRun }),
  );
  if (problem !== undefined) throw problem;
  return options;
}

// The propagation policy of valid DeleteOptions: the deprecated orphanDependents=true is Orphan.
function propagationPolicyOf(options: Json): 'Background' | 'Foreground' | 'Orphan' {
  const policy = options['propagationPolicy'];
  if (policy === 'Foreground' || policy === 'Orphan' || policy === 'Background') return policy;
  return options['orphanDependents'] === true ? 'Orphan' : 'Background';
}

// The decoder's 400 for a body it cannot read as the kind.
function cannotDecode(t: ResourceType, version: string, detail: string): ApiStatusError {
  return badRequest(`${t.kind} in version ${JSON.stringify(version)} cannot be handled as a ${t.kind}: ${detail}`);
}

// A JSON value as Go's %v prints the map it decodes to (`map[spec:map[bogus:1]]`), keys sorted.
function goValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${entries.map(([k, x]) => `${k}:${goValue(x)}`).join(' ')}]`;
  }
  return v === null ? '<nil>' : String(v);
}

// An object with its keys sorted at every level, as Go encodes a decoded map.
function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Json = {};
  for (const k of Object.keys(v).sort()) out[k] = sortedKeys((v as Json)[k]);
  return out;
}

function withoutManagedFields(obj: Readonly<Json>): Json {
  const { managedFields: _m, ...meta } = metaOf(obj);
  return { ...obj, metadata: meta };
}

// Pods bound to a node are deleted gracefully (their kubelet confirms); unbound ones at once.
function podGracePeriod(t: ResourceType, obj: Readonly<Json>, requested: number | undefined): number {
  if (t.id !== '/pods') return 0;
  const spec = (obj['spec'] ?? {}) as Json;
  if (typeof spec['nodeName'] !== 'string' || spec['nodeName'] === '') return 0;
  return requested ?? (typeof spec['terminationGracePeriodSeconds'] === 'number' ? spec['terminationGracePeriodSeconds'] : 30);
}

function namespaceFinalizers(ns: Json): string[] {
  const f = ((ns['spec'] ?? {}) as Json)['finalizers'];
  return Array.isArray(f) ? (f as string[]) : [];
}

// Which content bumps metadata.generation: spec for most kinds, everything but metadata and
// status for custom resources (status too when it is not a subresource).
function specChanged(t: ResourceType, old: Readonly<Json>, next: Json): boolean {
  if (t.generation === 'spec') return !jsonEqual(old['spec'], next['spec']);
  const skip = new Set(['metadata', 'kind', 'apiVersion']);
  if (t.statusSubresource) skip.add('status');
  const keys = new Set([...Object.keys(old), ...Object.keys(next)]);
  for (const k of keys) if (!skip.has(k) && !jsonEqual(old[k], next[k])) return true;
  return false;
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: `${start}\u0000` })).toString('base64');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as Json;
    if (parsed['v'] !== 'meta.k8s.io/v1' || typeof parsed['rv'] !== 'number' || typeof parsed['start'] !== 'string')
      throw new Error('bad token');
    return { rv: parsed['rv'], start: parsed['start'].replace(/\u0000$/, '') };
  } catch {
    throw badRequest(`continue key is not valid: ${token.slice(0, 100)}`);
  }
}

// A custom object as kube-apiserver decodes a write: unknown fields dropped, then defaults filled in.
function pruneAndDefault(obj: Json, schema: Json): void {
  pruneObject(obj, schema);
  defaultObject(obj, schema);
}
