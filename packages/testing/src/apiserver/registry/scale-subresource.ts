// The `/scale` subresource: an autoscaling/v1 Scale read from and written to the paths a kind
// declares (Deployments' spec.replicas, a CRD's subresources.scale), so that `kubectl scale` and
// autoscalers work on the embedded server. A write of the Scale is a write of the object's
// replicas, recorded in managedFields under the `scale` subresource.

import { LabelSelector } from '@kindex/core';
import { isJsonObject } from '@kindex/core/internal';
import { metaOf } from '../machinery/object-meta.js';
import { type Json, type ObjectStore, type StoredObject } from '../storage/object-store.js';
import { applyPatch, patchTypeOf } from '../machinery/patch.js';
import type { ScalePaths } from '../storage/resource-registry.js';
import type { JsonResponse } from '../machinery/json-response.js';
import type { RegistryStorage } from './registry-storage.js';
import { keyOf, type ResourceRequest } from './resource-request.js';
import { updateResource } from './verb-update.js';
import { ApiStatusError, badRequest, conflict, invalid, methodNotAllowed, MODIFIED_CONFLICT, notFound } from '../storage/status-error.js';

function segments(path: string): string[] {
  return path.replace(/^\./, '').split('.');
}

function readPath(obj: Readonly<Json>, path: string): unknown {
  let cur: unknown = obj;
  for (const s of segments(path)) cur = isJsonObject(cur) ? cur[s] : undefined;
  return cur;
}

function writePath(obj: Json, path: string, value: unknown): void {
  const parts = segments(path);
  let cur = obj;
  for (const s of parts.slice(0, -1)) {
    if (!isJsonObject(cur[s])) cur[s] = {};
    cur = cur[s] as Json;
  }
  cur[parts[parts.length - 1]!] = value;
}

/** Serves GET, PUT and PATCH of `/scale` for the kinds whose type declares scale paths. */
export class ScaleSubresource {
  private readonly store: ObjectStore;

  constructor(private readonly storage: RegistryStorage) {
    this.store = storage.store;
  }

  /** Answers one request to `<object>/scale`. */
  serve(method: string | undefined, req: ResourceRequest): JsonResponse {
    const paths = req.type.scale?.[req.version];
    if (paths === undefined || req.name === undefined) throw methodNotAllowed();
    const existing = this.mustGet(req);
    switch (method) {
      case 'GET':
        return { status: 200, body: JSON.stringify(scaleOf(existing.obj, paths)) };
      case 'PUT':
        return this.write(req, paths, existing, req.body);
      case 'PATCH': {
        const patchType = patchTypeOf(req.contentType, false);
        if (patchType === 'apply') {
          throw new ApiStatusError(
            415,
            'UnsupportedMediaType',
            'the embedded server does not serve server-side apply on /scale; send a merge patch or a PUT',
          );
        }
        return this.write(req, paths, existing, applyPatch(scaleOf(existing.obj, paths), patchType, req.body));
      }
      default:
        throw methodNotAllowed();
    }
  }

  // Writes the replicas of a Scale into the object, through the update verb (so that
  // validation, generation, managedFields and watch events are those of any other write).
  private write(req: ResourceRequest, paths: ScalePaths, existing: StoredObject, sent: unknown): JsonResponse {
    const t = req.type;
    if (!isJsonObject(sent)) throw badRequest('the body of the request must be a JSON object');
    const old = scaleOf(existing.obj, paths);
    // Admission webhooks see the Scale (autoscaling/v1), before it is validated.
    const body = req.admission?.mutate('UPDATE', { ...sent, apiVersion: 'autoscaling/v1', kind: 'Scale' }, old) ?? sent;
    const meta = isJsonObject(body['metadata']) ? body['metadata'] : {};
    const name = req.name!;
    if (meta['name'] !== undefined && meta['name'] !== name) {
      throw badRequest(`the name of the object (${String(meta['name'])}) does not match the name on the URL (${name})`);
    }
    const spec = isJsonObject(body['spec']) ? body['spec'] : {};
    const replicas = spec['replicas'] ?? 0;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
      throw badRequest(`Scale in version "v1" cannot be handled as a Scale: spec.replicas must be an integer`);
    }
    if (replicas < 0) {
      throw invalid('Scale', 'autoscaling', name, [
        { reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${replicas}: must be greater than or equal to 0` },
      ]);
    }
    const rv = meta['resourceVersion'];
    const currentRv = metaOf(existing.obj)['resourceVersion'];
    if (typeof rv === 'string' && rv !== '' && rv !== currentRv) throw conflict(t.resource, t.group, name, MODIFIED_CONFLICT);
    req.admission?.validate('UPDATE', { ...old, spec: { replicas } }, old);
    const draft = structuredClone(existing.obj) as Json;
    writePath(draft, paths.specReplicasPath, replicas);
    // The object itself is not admitted again: the Scale was.
    const updated = updateResource(this.storage, { ...req, admission: undefined, subresource: 'scale', body: draft, duplicateFields: [] });
    if (updated.status !== 200) return updated;
    return { status: 200, body: JSON.stringify(scaleOf(this.mustGet(req).obj, paths)) };
  }

  private mustGet(req: ResourceRequest): StoredObject {
    const t = req.type;
    const stored = this.store.get(t.id, keyOf(t, req.namespace, req.name!));
    if (stored === undefined) throw notFound(t.resource, t.group, req.name!);
    return stored;
  }
}

/** The autoscaling/v1 Scale of an object: its metadata, desired and observed replicas, selector. */
export function scaleOf(obj: Readonly<Json>, paths: ScalePaths): Json {
  const meta = metaOf(obj);
  const metadata: Json = {};
  for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp']) if (meta[k] !== undefined) metadata[k] = meta[k];
  const specReplicas = readPath(obj, paths.specReplicasPath);
  if (specReplicas === undefined) {
    // kube-apiserver answers a custom resource without the field with this 500, not a zero.
    const message = `the spec replicas field ${JSON.stringify(paths.specReplicasPath)} does not exist`;
    throw new ApiStatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
  }
  const statusReplicas = readPath(obj, paths.statusReplicasPath);
  const status: Json = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
  const selector = paths.labelSelectorPath === undefined ? undefined : readPath(obj, paths.labelSelectorPath);
  if (paths.selectorIsObject === true && isJsonObject(selector)) {
    status['selector'] = LabelSelector.fromSelector(selector).toString();
  } else if (typeof selector === 'string' && selector !== '') {
    status['selector'] = selector;
  }
  // ScaleSpec.replicas is omitempty: zero replicas show as an empty spec.
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata,
    spec: typeof specReplicas === 'number' && specReplicas !== 0 ? { replicas: specReplicas } : {},
    status,
  };
}
