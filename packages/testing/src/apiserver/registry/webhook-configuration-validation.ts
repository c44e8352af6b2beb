// Validation of Validating/MutatingWebhookConfigurations (admissionregistration.k8s.io/v1), as
// kube-apiserver's pkg/apis/admissionregistration/validation words it: a configuration the
// embedded server would store but a real cluster refuses would pass a test and fail in production.

import type { Json } from '../storage/object-store.js';
import type { StatusCause } from '../storage/status-error.js';
import { matchConditionCauses } from '../admission/webhook-match-conditions.js';
import { invalidValueCause as invalidValue, requiredCause as required, webhookUrlCauses } from '../webhook/webhook-url.js';

const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];
// v1 requires webhooks without side effects (Some and Unknown are v1beta1 values).
const SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const FQDN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const quoted = (values: readonly string[]): string => values.map((v) => JSON.stringify(v)).join(', ');

function notSupported(field: string, value: unknown, supported: readonly string[]): StatusCause {
  return {
    reason: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${quoted(supported)}`,
  };
}

function hookCauses(hook: Json, at: string, mutating: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = hook['name'];
  if (typeof name !== 'string' || name === '') causes.push(required(`${at}.name`, ''));
  else if (!FQDN_RE.test(name) || name.split('.').length < 3) {
    causes.push(invalidValue(`${at}.name`, name, 'should be a domain with at least three segments separated by dots'));
  }
  const rules = Array.isArray(hook['rules']) ? (hook['rules'] as Json[]) : [];
  rules.forEach((rule, i) => {
    const ops = Array.isArray(rule['operations']) ? (rule['operations'] as unknown[]) : [];
    if (ops.length === 0) causes.push(required(`${at}.rules[${i}].operations`, ''));
    ops.forEach((op, j) => {
      if (!OPERATIONS.includes(String(op))) causes.push(notSupported(`${at}.rules[${i}].operations[${j}]`, op, OPERATIONS));
    });
    for (const list of ['apiGroups', 'apiVersions', 'resources']) {
      if (!Array.isArray(rule[list]) || (rule[list] as unknown[]).length === 0) causes.push(required(`${at}.rules[${i}].${list}`, ''));
    }
  });
  const oneOf = (field: string, values: readonly string[]): void => {
    if (hook[field] !== undefined && !values.includes(String(hook[field])))
      causes.push(notSupported(`${at}.${field}`, hook[field], values));
  };
  oneOf('failurePolicy', ['Fail', 'Ignore']);
  oneOf('matchPolicy', ['Equivalent', 'Exact']);
  if (mutating) oneOf('reinvocationPolicy', ['IfNeeded', 'Never']);
  if (hook['sideEffects'] === undefined) causes.push(required(`${at}.sideEffects`, `must specify one of ${SIDE_EFFECTS.join(', ')}`));
  else oneOf('sideEffects', SIDE_EFFECTS);
  const timeout = hook['timeoutSeconds'];
  if (timeout !== undefined && !(typeof timeout === 'number' && timeout >= 1 && timeout <= 30)) {
    causes.push(invalidValue(`${at}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  }
  const client = (hook['clientConfig'] ?? {}) as Json;
  if ((client['url'] === undefined) === (client['service'] === undefined)) {
    causes.push(required(`${at}.clientConfig`, 'exactly one of url or service is required'));
  } else if (typeof client['url'] === 'string') {
    causes.push(...webhookUrlCauses(`${at}.clientConfig.url`, client['url']));
  }
  causes.push(...matchConditionCauses(hook['matchConditions'], `${at}.matchConditions`));
  const versions = Array.isArray(hook['admissionReviewVersions']) ? (hook['admissionReviewVersions'] as unknown[]).map(String) : [];
  if (versions.length === 0) {
    causes.push(required(`${at}.admissionReviewVersions`, `must specify one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
  } else if (!versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v))) {
    causes.push(
      invalidValue(`${at}.admissionReviewVersions`, versions, `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`),
    );
  }
  return causes;
}

/** The 422 causes of a webhook configuration (`mutating` for a MutatingWebhookConfiguration). */
export function webhookConfigurationCauses(obj: Readonly<Json>, mutating: boolean): StatusCause[] {
  const hooks = Array.isArray(obj['webhooks']) ? (obj['webhooks'] as Json[]) : [];
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  hooks.forEach((hook, i) => {
    causes.push(...hookCauses(hook, `webhooks[${i}]`, mutating));
    const name = String(hook['name'] ?? '');
    if (seen.has(name))
      causes.push({ reason: 'FieldValueDuplicate', field: `webhooks[${i}].name`, message: `Duplicate value: ${JSON.stringify(name)}` });
    seen.add(name);
  });
  return causes;
}
