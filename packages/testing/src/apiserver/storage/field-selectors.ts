// Which field labels kube-apiserver accepts per kind (each registry's GetAttrs / field label
// conversion), and how to read them from an object. Any other field is a 400, as on the real server.

import { FieldSelector } from '@kindex/core/internal';
import { badRequest } from './status-error.js';
import type { ResourceType } from './resource-registry.js';

type Json = Record<string, unknown>;

function path(obj: Json, dotted: string): string | undefined {
  let cur: unknown = obj;
  for (const part of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Json)[part];
  }
  if (cur === undefined || cur === null) return undefined;
  return typeof cur === 'string' ? cur : String(cur);
}

const POD_FIELDS = [
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.schedulerName',
  'spec.serviceAccountName',
  'spec.hostNetwork',
  'status.phase',
  'status.podIP',
  'status.nominatedNodeName',
];

const EVENT_FIELDS = [
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
];

const EXTRA_FIELDS: Record<string, readonly string[]> = {
  '/pods': POD_FIELDS,
  '/secrets': ['type'],
  '/events': EVENT_FIELDS,
  '/namespaces': ['status.phase'],
};

/** The field labels a type supports beyond metadata.name and metadata.namespace. */
export function supportedFields(type: ResourceType): readonly string[] {
  return EXTRA_FIELDS[type.id] ?? [];
}

/**
 * Parses a field selector and checks every field against what the kind supports.
 * @throws {ApiStatusError} 400 for bad syntax or `field label not supported: X`.
 */
export function parseFieldSelector(type: ResourceType, text: string): FieldSelector {
  let selector: FieldSelector;
  try {
    selector = FieldSelector.parse(text);
  } catch (e) {
    throw badRequest((e as Error).message);
  }
  const extra = supportedFields(type);
  for (const r of selector.requirements) {
    if (r.field !== 'metadata.name' && r.field !== 'metadata.namespace' && !extra.includes(r.field)) {
      // Kinds with their own field label conversion say "not supported"; the others use the
      // default conversion's wording.
      throw badRequest(
        extra.length > 0
          ? `field label not supported: ${r.field}`
          : `"${r.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
      );
    }
  }
  return selector;
}

/** Reads a field label from an object, as the kind's GetAttrs does. */
export function fieldValue(type: ResourceType, obj: Json, field: string): string | undefined {
  if (field === 'metadata.name') return path(obj, 'metadata.name');
  if (field === 'metadata.namespace') return path(obj, 'metadata.namespace') ?? (type.namespaced ? '' : undefined);
  if (type.id === '/events' && field === 'source') return path(obj, 'source.component');
  if (type.id === '/pods' && field === 'spec.hostNetwork') return path(obj, field) ?? 'false';
  return path(obj, field);
}
