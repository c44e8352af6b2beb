// DELETE and DELETE on a collection: preconditions, propagation policy (Background, Foreground,
// Orphan), finalizers, graceful deletion of scheduled pods and terminating namespaces; and the
// deletion the controllers run (deleteObject).

import type { JsonResponse } from '../machinery/json-response.js';
import { finalizersOf, metaOf } from '../machinery/object-meta.js';
import { deleteOptionsCauses, optionsError } from '../machinery/request-options.js';
import type { Json, StoredObject } from '../storage/object-store.js';
import type { ResourceType } from '../storage/resource-registry.js';
import { ApiStatusError, badRequest, conflict, methodNotAllowed } from '../storage/status-error.js';
import { matchesSpec } from '../watch/watch-hub.js';
import { mustGet, objectResponse, removeObject, writeObject, type RegistryStorage } from './registry-storage.js';
import { once, type ResourceRequest } from './resource-request.js';
import { selectorsOf } from './verb-get-list.js';

const IMMORTAL_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

/** DELETE with preconditions, propagation policy and finalizers. */
export function deleteResource(s: RegistryStorage, req: ResourceRequest): JsonResponse {
  const t = req.type;
  const existing = mustGet(s, t, req.namespace, req.name!);
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
  if (grace !== undefined && !(Number.isInteger(grace) && grace >= 0)) throw badRequest(`invalid gracePeriodSeconds: ${String(graceText)}`);
  const dryRun = req.dryRun === true;
  const result = deleteObject(s, t, existing, policy, grace, dryRun);
  // Held by finalizers: the answer is the object, now carrying its deletionTimestamp.
  const held = dryRun
    ? result !== existing || metaOf(existing.obj)['deletionTimestamp'] !== undefined
    : s.store.get(t.id, existing.key) !== undefined;
  if (result !== undefined && held) return objectResponse(200, req, result);
  if (t.returnDeletedObject) return objectResponse(200, req, result ?? existing);
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
export function deleteCollection(s: RegistryStorage, req: ResourceRequest): JsonResponse {
  const t = req.type;
  // kube-apiserver's namespace storage has no DeleteCollection.
  if (t.id === '/namespaces') throw methodNotAllowed();
  const { labels, fields } = selectorsOf(s, req);
  const spec = { type: t, namespace: req.namespace, labels, fields };
  const policy = propagationPolicyOf(deleteOptionsOf(req));
  const doomed = [...s.store.list(t.id, req.namespace)].filter((o) => matchesSpec(spec, o.obj));
  // Object by object, in key order, as kube-apiserver's DeleteCollection worker goes: admit one,
  // delete one; a refusal stops there and leaves the objects deleted before it deleted. The
  // objects a replayed pass (admitted-write.ts) already deleted are not admitted again, though
  // one held by finalizers is still listed.
  const done = once(req, 'deletecollection', () => new Set<string>());
  for (const o of doomed) {
    const uid = String(metaOf(o.obj)['uid']);
    if (done.has(uid)) continue;
    req.admission?.validate('DELETE', undefined, o.obj);
    deleteObject(s, t, o, policy, undefined, req.dryRun === true);
    done.add(uid);
  }
  return { status: 200, body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' }) };
}

/**
 * Deletes an object the way DELETE does, for the API and for the garbage collector: objects
 * with finalizers (or a Foreground policy) get a deletionTimestamp and stay until the last
 * finalizer goes; others are removed. Returns the held object or the removed one.
 */
export function deleteObject(
  s: RegistryStorage,
  t: ResourceType,
  existing: StoredObject,
  policy: 'Background' | 'Foreground' | 'Orphan' = 'Background',
  gracePeriodSeconds?: number,
  dryRun = false,
): StoredObject | undefined {
  const meta = metaOf(existing.obj);
  const marked = meta['deletionTimestamp'] === undefined ? s.hooks.markForDeletion?.(t, existing.obj) : undefined;
  const finalizers = finalizersOf(marked ?? existing.obj);
  const extra = policy === 'Foreground' ? 'foregroundDeletion' : policy === 'Orphan' ? 'orphan' : undefined;
  const isNamespace = t.id === '/namespaces';
  const grace = podGracePeriod(t, existing.obj, gracePeriodSeconds);
  // A scheduled pod waits for its kubelet; there is none, so only a 0-second delete removes it.
  if (meta['deletionTimestamp'] !== undefined && grace === 0 && finalizers.length === 0 && extra === undefined && !isNamespace) {
    return removeObject(s, t, existing, dryRun);
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
    const stored = writeObject(s, t, existing.key, draft, 'update', dryRun);
    if (isPod && grace === 0 && finalizersOf(stored.obj).length === 0) return dryRun ? stored : removeObject(s, t, existing, false);
    return stored;
  }
  return removeObject(s, t, existing, dryRun);
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

// Pods bound to a node are deleted gracefully (their kubelet confirms); unbound ones at once.
function podGracePeriod(t: ResourceType, obj: Readonly<Json>, requested: number | undefined): number {
  if (t.id !== '/pods') return 0;
  const spec = (obj['spec'] ?? {}) as Json;
  if (typeof spec['nodeName'] !== 'string' || spec['nodeName'] === '') return 0;
  return requested ?? (typeof spec['terminationGracePeriodSeconds'] === 'number' ? spec['terminationGracePeriodSeconds'] : 30);
}
