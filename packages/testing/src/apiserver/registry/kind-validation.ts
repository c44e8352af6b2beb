// Validation of the body of a few built-in kinds, beyond object metadata: the checks the real
// server makes that operators and their tests run into (ConfigMap and Secret keys, Secret data
// encoding, Lease durations). Custom resources are not validated against their schemas.

import { deploymentCauses } from './deployment-defaults.js';
import { ENDPOINT_SLICES } from '../storage/resource-registry.js';
import { endpointSliceCauses } from './endpoint-slice.js';
import { MUTATING_CONFIGURATIONS, VALIDATING_CONFIGURATIONS } from '../admission/admission-webhook-dispatcher.js';
import type { Json } from '../storage/object-store.js';
import { webhookConfigurationCauses } from './webhook-configuration-validation.js';
import type { StatusCause } from '../storage/status-error.js';

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
    case 'apps/deployments':
      return deploymentCauses(typeId, obj);
    case 'coordination.k8s.io/leases':
      return leaseCauses(obj);
    case ENDPOINT_SLICES:
      return endpointSliceCauses(obj);
    case MUTATING_CONFIGURATIONS:
    case VALIDATING_CONFIGURATIONS:
      return webhookConfigurationCauses(obj, typeId === MUTATING_CONFIGURATIONS);
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

/** Folds Secret `stringData` into `data` (base64), as the real server does on every write. */
export function foldStringData(typeId: string, obj: Json): void {
  if (typeId !== '/secrets' || obj['stringData'] === undefined || obj['stringData'] === null) return;
  const data = { ...((obj['data'] ?? {}) as Record<string, string>) };
  for (const [k, v] of Object.entries(obj['stringData'] as Record<string, string>)) data[k] = Buffer.from(v, 'utf8').toString('base64');
  obj['data'] = data;
  delete obj['stringData'];
}
