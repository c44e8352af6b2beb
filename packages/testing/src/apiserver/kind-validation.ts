// Validation of the body of a few built-in kinds, beyond object metadata: the checks the real
// server makes that operators and their tests run into (ConfigMap and Secret keys, Secret data
// encoding, Lease durations). Custom resources are not validated against their schemas.

import type { Json } from './object-store.js';
import type { StatusCause } from './status-error.js';

const CONFIG_KEY_RE = /^[-._a-zA-Z0-9]+$/;
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

function keyCauses(map: unknown, field: string, values: 'string' | 'base64'): StatusCause[] {
  const causes: StatusCause[] = [];
  if (map === undefined || map === null) return causes;
  if (typeof map !== 'object' || Array.isArray(map)) {
    return [{ reason: 'FieldValueInvalid', field, message: 'Invalid value: must be a map of strings' }];
  }
  for (const [k, v] of Object.entries(map as Json)) {
    if (!CONFIG_KEY_RE.test(k) || k === '.' || k === '..' || k.length > 253) {
      causes.push({ reason: 'FieldValueInvalid', field: `${field}[${k}]`, message: `Invalid value: ${JSON.stringify(k)}: ${KEY_MSG}` });
    }
    if (typeof v !== 'string') {
      causes.push({ reason: 'FieldValueInvalid', field: `${field}[${k}]`, message: 'Invalid value: must be a string' });
    } else if (values === 'base64' && !BASE64_RE.test(v)) {
      causes.push({ reason: 'FieldValueInvalid', field: `${field}[${k}]`, message: 'Invalid value: illegal base64 data' });
    }
  }
  return causes;
}

/** Problems with the kind-specific content of an object, empty when it is valid. */
export function kindCauses(typeId: string, obj: Json): StatusCause[] {
  switch (typeId) {
    case '/configmaps': {
      const causes = [...keyCauses(obj['data'], 'data', 'string'), ...keyCauses(obj['binaryData'], 'binaryData', 'base64')];
      const data = (obj['data'] ?? {}) as Json;
      for (const k of Object.keys(obj['binaryData'] ?? {})) {
        if (Object.prototype.hasOwnProperty.call(data, k)) {
          causes.push({
            reason: 'FieldValueInvalid',
            field: `data[${k}]`,
            message: `Invalid value: ${JSON.stringify(k)}: duplicate of key present in binaryData`,
          });
        }
      }
      return causes;
    }
    case '/secrets':
      return [...keyCauses(obj['data'], 'data', 'base64'), ...keyCauses(obj['stringData'], 'stringData', 'string')];
    case '/pods':
      return podCauses(obj);
    case 'coordination.k8s.io/leases':
      return leaseCauses(obj);
    default:
      return [];
  }
}

// ValidateLeaseSpec of kube-apiserver (pkg/apis/coordination/validation); its MicroTimes are
// checked when the body is decoded (micro-time.ts).
function leaseCauses(obj: Json): StatusCause[] {
  const spec = (obj['spec'] ?? {}) as Json;
  const causes: StatusCause[] = [];
  const duration = spec['leaseDurationSeconds'];
  if (typeof duration === 'number' && duration <= 0) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.leaseDurationSeconds',
      message: `Invalid value: ${duration}: must be greater than 0`,
    });
  }
  const transitions = spec['leaseTransitions'];
  if (typeof transitions === 'number' && transitions < 0) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.leaseTransitions',
      message: `Invalid value: ${transitions}: must be greater than or equal to 0`,
    });
  }
  return causes;
}

function podCauses(obj: Json): StatusCause[] {
  const containers = ((obj['spec'] ?? {}) as Json)['containers'];
  if (!Array.isArray(containers) || containers.length === 0) {
    return [{ reason: 'FieldValueRequired', field: 'spec.containers', message: 'Required value' }];
  }
  const causes: StatusCause[] = [];
  containers.forEach((c: unknown, i) => {
    const container = (c ?? {}) as Json;
    for (const f of ['name', 'image']) {
      if (typeof container[f] !== 'string' || container[f] === '') {
        causes.push({ reason: 'FieldValueRequired', field: `spec.containers[${i}].${f}`, message: 'Required value' });
      }
    }
  });
  return causes;
}

/** Problems with an update of a kind that restricts changes (immutable ConfigMaps and Secrets). */
export function updateCauses(typeId: string, old: Readonly<Json>, next: Json): StatusCause[] {
  if ((typeId !== '/configmaps' && typeId !== '/secrets') || old['immutable'] !== true) return [];
  const causes: StatusCause[] = [];
  const fields = typeId === '/configmaps' ? ['data', 'binaryData'] : ['data', 'type'];
  for (const f of fields) {
    if (JSON.stringify(old[f] ?? null) !== JSON.stringify(next[f] ?? null)) {
      causes.push({ reason: 'FieldValueForbidden', field: f, message: 'Forbidden: field is immutable when `immutable` is set' });
    }
  }
  if (next['immutable'] !== true) {
    causes.push({ reason: 'FieldValueForbidden', field: 'immutable', message: 'Forbidden: field is immutable when `immutable` is set' });
  }
  return causes;
}

/** Defaults the real server applies to Pods, where field selectors can see them. */
export function defaultPod(obj: Json): void {
  const spec = (obj['spec'] ?? {}) as Json;
  obj['spec'] = spec;
  spec['restartPolicy'] ??= 'Always';
  spec['schedulerName'] ??= 'default-scheduler';
  spec['dnsPolicy'] ??= 'ClusterFirst';
  spec['terminationGracePeriodSeconds'] ??= 30;
  // Ports are keyed by containerPort+protocol for field ownership, so the default matters there.
  for (const list of ['initContainers', 'containers']) {
    const containers = spec[list];
    if (!Array.isArray(containers)) continue;
    for (const c of containers as Json[]) {
      if (c === null || typeof c !== 'object' || !Array.isArray(c['ports'])) continue;
      for (const p of c['ports'] as Json[]) if (p !== null && typeof p === 'object') p['protocol'] ??= 'TCP';
    }
  }
}

/**
 * Service defaults of the real server's decoding, applied on every write: type ClusterIP,
 * sessionAffinity None, and per port protocol TCP and targetPort = port (ports are keyed by
 * port+protocol for field ownership). No ClusterIP is allocated.
 */
export function defaultService(typeId: string, obj: Json): void {
  if (typeId !== '/services') return;
  const spec = obj['spec'];
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return;
  const s = spec as Json;
  s['type'] ??= 'ClusterIP';
  s['sessionAffinity'] ??= 'None';
  if (!Array.isArray(s['ports'])) return;
  for (const p of s['ports'] as Json[]) {
    if (p === null || typeof p !== 'object') continue;
    p['protocol'] ??= 'TCP';
    p['targetPort'] ??= p['port'];
  }
}

/**
 * Deployment defaults the field-ownership keys and a no-change apply depend on: replicas 1 and
 * TCP for the template's container ports. There is no deployment controller: status stays empty.
 */
export function defaultDeployment(typeId: string, obj: Json): void {
  if (typeId !== 'apps/deployments') return;
  const spec = obj['spec'];
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return;
  (spec as Json)['replicas'] ??= 1;
  const template = (spec as Json)['template'] as Json | undefined;
  const podSpec = template?.['spec'] as Json | undefined;
  if (podSpec === undefined || podSpec === null || typeof podSpec !== 'object') return;
  for (const list of ['initContainers', 'containers']) {
    const containers = podSpec[list];
    if (!Array.isArray(containers)) continue;
    for (const c of containers as Json[]) {
      if (c === null || typeof c !== 'object' || !Array.isArray(c['ports'])) continue;
      for (const p of c['ports'] as Json[]) if (p !== null && typeof p === 'object') p['protocol'] ??= 'TCP';
    }
  }
}

/** Folds Secret `stringData` into `data` (base64), as the real server does on every write. */
export function foldStringData(typeId: string, obj: Json): void {
  if (typeId !== '/secrets' || obj['stringData'] === undefined || obj['stringData'] === null) return;
  const data = { ...((obj['data'] ?? {}) as Record<string, string>) };
  for (const [k, v] of Object.entries(obj['stringData'] as Record<string, string>)) data[k] = Buffer.from(v, 'utf8').toString('base64');
  obj['data'] = data;
  delete obj['stringData'];
}
