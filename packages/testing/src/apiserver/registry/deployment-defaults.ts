// Deployments as kube-apiserver stores them: the defaults of apps/v1 (SetDefaults_Deployment and
// the pod template's, pod-defaults.ts) and the validation operators trip over first, a selector
// that does not select the template's pods. There is no deployment controller: status stays empty.

import { LabelSelector } from '@kindex/core';
import { isJsonObject } from '@kindex/core/internal';
import { defaultPodSpec } from './pod-defaults.js';
import { type Json } from '../storage/object-store.js';
import type { StatusCause } from '../storage/status-error.js';

const DEPLOYMENT_TYPE_ID = 'apps/deployments';

/** Fills in a Deployment's defaults in place, on every write (as decoding does). */
export function defaultDeployment(typeId: string, obj: Json): void {
  if (typeId !== DEPLOYMENT_TYPE_ID) return;
  const spec = obj['spec'];
  if (!isJsonObject(spec)) return;
  spec['replicas'] ??= 1;
  if (!isJsonObject(spec['strategy'])) spec['strategy'] = {};
  const strategy = spec['strategy'] as Json;
  strategy['type'] ??= 'RollingUpdate';
  if (strategy['type'] === 'RollingUpdate') {
    if (!isJsonObject(strategy['rollingUpdate'])) strategy['rollingUpdate'] = {};
    const rolling = strategy['rollingUpdate'] as Json;
    rolling['maxUnavailable'] ??= '25%';
    rolling['maxSurge'] ??= '25%';
  }
  spec['revisionHistoryLimit'] ??= 10;
  spec['progressDeadlineSeconds'] ??= 600;
  const template = spec['template'];
  if (isJsonObject(template)) defaultPodSpec(template['spec']);
}

/**
 * Problems with a Deployment beyond its metadata: a selector that does not match the template's
 * labels (kube-apiserver's ValidateDeploymentSpec wording), empty when valid or not a Deployment.
 */
export function deploymentCauses(typeId: string, obj: Readonly<Json>): StatusCause[] {
  if (typeId !== DEPLOYMENT_TYPE_ID) return [];
  const spec = obj['spec'];
  if (!isJsonObject(spec) || !isJsonObject(spec['selector'])) return [];
  const template = spec['template'];
  const labels = isJsonObject(template) && isJsonObject(template['metadata']) ? template['metadata']['labels'] : undefined;
  let selector: LabelSelector;
  try {
    selector = LabelSelector.fromSelector(spec['selector']);
  } catch {
    // A malformed selector is a different error; the label check says nothing about it.
    return [];
  }
  const labelMap = isJsonObject(labels) ? (labels as Record<string, string>) : {};
  // An empty selector is refused with its own error, which this module does not produce.
  if (selector.isEmpty() || selector.matches(labelMap)) return [];
  return [
    {
      reason: 'FieldValueInvalid',
      field: 'spec.template.metadata.labels',
      message: `Invalid value: ${JSON.stringify(sortedMap(labelMap))}: \`selector\` does not match template \`labels\``,
    },
  ];
}

// Go encodes a map with its keys sorted.
function sortedMap(m: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
