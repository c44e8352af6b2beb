// CustomResourceDefinitions: validation of a CRD on write, and serving its resource from the
// moment it is stored until it is deleted. Deleting a CRD goes as on kube-apiserver: the delete
// adds the customresourcecleanup finalizer and a Terminating condition, new objects are refused
// (403), the objects are deleted (each as DELETE would, so their finalizers hold the CRD), then
// the finalizer goes and with it the CRD, its endpoints and its discovery. Each version's
// openAPIV3Schema goes into the served type, where @kindex/core's pruneCustomObject,
// defaultCustomObject and validateCustomObject apply it to objects (as customResource().validate()
// does client-side).

import { defaultCustomObject } from '@kindex/core';
import { validationRuleErrors } from '@kindex/core/internal';
import { conversionCauses } from './crd-conversion-validation.js';
import { finalizersOf, metaOf, nowTimestamp } from '../machinery/object-meta.js';
import type { Json, ObjectStore, StoredObject } from '../storage/object-store.js';
import type { ResourceRegistry, ResourceType, ScalePaths } from '../storage/resource-registry.js';
import type { ControllerWrites as ResourceHandler } from '../machinery/controller-writes.js';
import { ApiStatusError, invalid, type StatusCause } from '../storage/status-error.js';

const CRD_TYPE_ID = 'apiextensions.k8s.io/customresourcedefinitions';
/** The finalizer kube-apiserver adds to a CRD being deleted, until its objects are gone. */
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';
const DNS_LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Keeps the registry in step with the CRDs in the store. */
export class CrdController {
  /** Names of CRDs whose objects are being deleted (the Terminating condition says InProgress). */
  private readonly cleaning = new Set<string>();
  /** CRD names with a cleanup pass queued, so that a burst of removals queues one. */
  private readonly queued = new Set<string>();

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    private readonly onUnserved: (typeId: string) => void,
    private readonly handler: ResourceHandler,
  ) {}

  /** A CRD about to be marked for deletion, with the cleanup finalizer and Terminating (Pending). */
  markForDeletion(type: ResourceType, obj: Readonly<Json>): Json | undefined {
    if (type.id !== CRD_TYPE_ID) return undefined;
    const draft = structuredClone(obj) as Json;
    const meta = metaOf(draft);
    const finalizers = Array.isArray(meta['finalizers']) ? (meta['finalizers'] as string[]) : [];
    if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) meta['finalizers'] = [...finalizers, CRD_CLEANUP_FINALIZER];
    const status = (draft['status'] ?? {}) as Json;
    const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as Json[]) : [];
    draft['status'] = { ...status, conditions: [...conditions.filter((c) => c['type'] !== 'Terminating'), terminating(false)] };
    return draft;
  }

  // kube-apiserver refuses new objects of a CRD being deleted, with this 403.
  private refuseCreateWhileTerminating(type: ResourceType, draft: Json): void {
    const crd = this.store.get(CRD_TYPE_ID, `${type.resource}.${type.group}`);
    if (crd === undefined || metaOf(crd.obj)['deletionTimestamp'] === undefined) return;
    const name = String(metaOf(draft)['name'] ?? '');
    throw new ApiStatusError(
      403,
      'Forbidden',
      `${type.resource}.${type.group} "${name}" is forbidden: create not allowed while custom resource definition is terminating`,
      { name, group: type.group, kind: type.resource },
    );
  }

  /** Validates a CRD and fills in its status, as the apiextensions controllers would. */
  beforeWrite(type: ResourceType, draft: Json, old: StoredObject | undefined): void {
    if (type.custom && old === undefined) this.refuseCreateWhileTerminating(type, draft);
    if (type.id !== CRD_TYPE_ID) return;
    const meta = metaOf(draft);
    const name = String(meta['name'] ?? '');
    const spec = (draft['spec'] ?? {}) as Json;
    const names = (spec['names'] ?? {}) as Json;
    const causes: StatusCause[] = [];
    const req = (field: string, value: unknown): void => {
      if (typeof value !== 'string' || value === '') causes.push({ reason: 'FieldValueRequired', field, message: 'Required value' });
    };
    req('spec.group', spec['group']);
    req('spec.names.plural', names['plural']);
    req('spec.names.kind', names['kind']);
    if (typeof names['plural'] === 'string' && !DNS_LABEL_RE.test(names['plural'])) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'spec.names.plural',
        message: `Invalid value: "${names['plural']}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'`,
      });
    }
    if (typeof spec['group'] === 'string' && typeof names['plural'] === 'string' && name !== `${names['plural']}.${spec['group']}`) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`,
      });
    }
    if (spec['scope'] !== 'Namespaced' && spec['scope'] !== 'Cluster') {
      causes.push({
        reason: 'FieldValueNotSupported',
        field: 'spec.scope',
        message: `Unsupported value: ${JSON.stringify(spec['scope'] ?? '')}: supported values: "Cluster", "Namespaced"`,
      });
    }
    const versions = Array.isArray(spec['versions']) ? (spec['versions'] as Json[]) : [];
    if (versions.length === 0)
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'spec.versions',
        message: 'Invalid value: must have exactly one version marked as storage version',
      });
    else if (versions.filter((v) => v['storage'] === true).length !== 1) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'spec.versions',
        message: 'Invalid value: must have exactly one version marked as storage version',
      });
    }
    versions.forEach((v, i) => {
      req(`spec.versions[${i}].name`, v['name']);
      if (typeof v['served'] !== 'boolean')
        causes.push({ reason: 'FieldValueRequired', field: `spec.versions[${i}].served`, message: 'Required value' });
    });
    if (old !== undefined) {
      const oldSpec = (old.obj['spec'] ?? {}) as Json;
      if (oldSpec['scope'] !== spec['scope'])
        causes.push({ reason: 'FieldValueInvalid', field: 'spec.scope', message: 'Invalid value: field is immutable' });
      if (oldSpec['group'] !== spec['group'])
        causes.push({ reason: 'FieldValueInvalid', field: 'spec.group', message: 'Invalid value: field is immutable' });
    }
    causes.push(...conversionCauses(spec['conversion']));
    causes.push(...schemaRuleErrors(versions));
    const clash = this.conflictingType(names, String(spec['group'] ?? ''));
    if (clash !== undefined) causes.push({ reason: 'FieldValueInvalid', field: 'spec.names.plural', message: clash });
    if (causes.length > 0) throw invalid('CustomResourceDefinition', 'apiextensions.k8s.io', name, causes);

    const kind = names['kind'] as string;
    const accepted: Json = {
      ...names,
      singular: names['singular'] || kind.toLowerCase(),
      listKind: names['listKind'] || `${kind}List`,
    };
    spec['names'] = accepted;
    spec['conversion'] ??= { strategy: 'None' };
    const storage = versions.find((v) => v['storage'] === true)!['name'] as string;
    const oldStatus = (old?.obj['status'] ?? {}) as Json;
    const stored = new Set<string>(Array.isArray(oldStatus['storedVersions']) ? (oldStatus['storedVersions'] as string[]) : []);
    stored.add(storage);
    const now = nowTimestamp();
    const condition = (type: string, reason: string, message: string): Json => ({
      type,
      status: 'True',
      lastTransitionTime: now,
      reason,
      message,
    });
    const prevConditions = Array.isArray(oldStatus['conditions']) ? (oldStatus['conditions'] as Json[]) : [];
    const keep = (c: Json): Json => prevConditions.find((p) => p['type'] === c['type'] && p['status'] === c['status']) ?? c;
    const conditions = [
      keep(condition('NamesAccepted', 'NoConflicts', 'no conflicts found')),
      keep(condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted')),
    ];
    if (meta['deletionTimestamp'] !== undefined) {
      const wanted = terminating(this.cleaning.has(name));
      const prev = prevConditions.find((p) => p['type'] === 'Terminating' && p['reason'] === wanted['reason']);
      conditions.push(prev ?? wanted);
    }
    draft['status'] = {
      conditions,
      acceptedNames: accepted,
      storedVersions: [...stored],
    };
  }

  /** Serves, re-serves or stops serving the resource of a written or removed CRD. */
  afterWrite(type: ResourceType, stored: StoredObject | undefined, removed: StoredObject | undefined): void {
    // An object of a CRD being deleted is gone: the CRD may be able to go too.
    if (type.custom && removed !== undefined) {
      const crdName = `${type.resource}.${type.group}`;
      if (this.cleaning.has(crdName)) this.queueCleanup(crdName);
    }
    if (type.id !== CRD_TYPE_ID) return;
    if (stored !== undefined) {
      const t = typeOfCrd(stored.obj);
      const meta = metaOf(stored.obj);
      if (meta['deletionTimestamp'] === undefined) {
        this.registry.register(t);
        this.redefault(t);
      } else if (finalizersOf(stored.obj).includes(CRD_CLEANUP_FINALIZER)) this.queueCleanup(String(meta['name']));
    }
    if (removed !== undefined) {
      const t = typeOfCrd(removed.obj);
      this.cleaning.delete(String(metaOf(removed.obj)['name']));
      // A CRD removed without its cleanup (its finalizer taken off by hand) leaves no objects behind.
      for (const o of [...this.store.list(t.id)]) this.store.delete(t, o.key);
      this.registry.unregister(t.id);
      this.onUnserved(t.id);
    }
  }

  // Cleanup runs after the write that asked for it has answered, as the real controller does.
  private queueCleanup(name: string): void {
    if (this.queued.has(name)) return;
    this.queued.add(name);
    setImmediate(() => {
      this.queued.delete(name);
      this.cleanUp(name);
    });
  }

  // One pass of the customresourcecleanup finalizer: Terminating InProgress, every object deleted;
  // when none is left (none held by its own finalizers), the finalizer is removed.
  private cleanUp(name: string): void {
    let crd = this.store.get(CRD_TYPE_ID, name);
    if (crd === undefined || !finalizersOf(crd.obj).includes(CRD_CLEANUP_FINALIZER)) return;
    const crdType = this.registry.byTypeId(CRD_TYPE_ID)!;
    if (!this.cleaning.has(name)) {
      this.cleaning.add(name);
      crd = this.handler.rewrite(crdType, crd, structuredClone(crd.obj)) ?? crd;
    }
    const t = typeOfCrd(crd.obj);
    for (const o of [...this.store.list(t.id)]) {
      if (metaOf(o.obj)['deletionTimestamp'] === undefined) this.handler.deleteObject(t, o, 'Background');
    }
    if (this.store.list(t.id).next().done !== true) return;
    const draft = structuredClone(crd.obj) as Json;
    const meta = metaOf(draft);
    meta['finalizers'] = finalizersOf(crd.obj).filter((f) => f !== CRD_CLEANUP_FINALIZER);
    this.handler.rewrite(crdType, crd, draft);
  }

  // Reads default with the current schema: objects stored before the CRD gained a default show it.
  private redefault(t: ResourceType): void {
    const schema = t.schemas?.[t.storageVersion];
    if (schema === undefined) return;
    for (const o of [...this.store.list(t.id)]) {
      const draft = structuredClone(o.obj) as Json;
      defaultCustomObject(schema, draft);
      const { kind: _k, apiVersion: _a, ...rest } = draft;
      if (JSON.stringify(rest) !== o.body) this.store.redecode(t, o.key, draft);
    }
  }

  private conflictingType(names: Json, group: string): string | undefined {
    const plural = names['plural'];
    const existing = this.registry.byTypeId(`${group}/${String(plural)}`);
    if (existing !== undefined && !existing.custom) return `Invalid value: "${String(plural)}": conflicts with a built-in resource`;
    return undefined;
  }
}

// The Terminating condition of a CRD being deleted: pending until its cleanup starts.
function terminating(inProgress: boolean): Json {
  return {
    type: 'Terminating',
    status: 'True',
    lastTransitionTime: nowTimestamp(),
    reason: inProgress ? 'InstanceDeletionInProgress' : 'InstanceDeletionPending',
    message: inProgress
      ? 'CustomResource deletion is in progress'
      : 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
  };
}

/** The served type a CRD describes. */
export function typeOfCrd(crd: Readonly<Json>): ResourceType {
  const spec = crd['spec'] as Json;
  const names = spec['names'] as Json;
  const versions = (spec['versions'] as Json[]) ?? [];
  const group = spec['group'] as string;
  const plural = names['plural'] as string;
  const kind = names['kind'] as string;
  const storage = versions.find((v) => v['storage'] === true);
  return {
    id: `${group}/${plural}`,
    group,
    versions: versions.filter((v) => v['served'] === true).map((v) => v['name'] as string),
    storageVersion: (storage?.['name'] as string | undefined) ?? (versions[0]?.['name'] as string),
    resource: plural,
    singularName: (names['singular'] as string | undefined) || kind.toLowerCase(),
    kind,
    listKind: (names['listKind'] as string | undefined) || `${kind}List`,
    namespaced: spec['scope'] === 'Namespaced',
    shortNames: Array.isArray(names['shortNames']) ? (names['shortNames'] as string[]) : [],
    categories: Array.isArray(names['categories']) ? (names['categories'] as string[]) : [],
    statusSubresource: versions.some((v) => ((v['subresources'] ?? {}) as Json)['status'] !== undefined),
    statusVersions: versions.filter((v) => ((v['subresources'] ?? {}) as Json)['status'] !== undefined).map((v) => v['name'] as string),
    custom: true,
    scale: Object.fromEntries(
      versions
        .map((v) => [v['name'] as string, ((v['subresources'] ?? {}) as Json)['scale']] as const)
        .filter((e): e is readonly [string, ScalePaths] => e[1] !== null && typeof e[1] === 'object'),
    ),
    generation: 'all-but-metadata-status',
    returnDeletedObject: true,
    schemas: Object.fromEntries(
      versions
        .map((v) => [v['name'] as string, ((v['schema'] ?? {}) as Json)['openAPIV3Schema']] as const)
        .filter((e): e is readonly [string, Json] => e[1] !== null && typeof e[1] === 'object'),
    ),
  };
}

// CEL rules that do not compile, reported where kube-apiserver reports them: under
// spec.validation when every version has the same schema (it hoists it there), else per version.
function schemaRuleErrors(versions: readonly Json[]): StatusCause[] {
  const schemas = versions.map((v) => ((v['schema'] ?? {}) as Json)['openAPIV3Schema']);
  const shared = schemas.every((s) => JSON.stringify(s) === JSON.stringify(schemas[0]));
  const causes: StatusCause[] = [];
  schemas.forEach((s, i) => {
    if (s === null || typeof s !== 'object' || (shared && i > 0)) return;
    const path = shared ? 'spec.validation.openAPIV3Schema' : `spec.versions[${i}].schema.openAPIV3Schema`;
    const { compile, cost } = validationRuleErrors(s, path);
    for (const { reason, field, message } of [...compile, ...cost]) causes.push({ reason, field, message });
  });
  return causes;
}
