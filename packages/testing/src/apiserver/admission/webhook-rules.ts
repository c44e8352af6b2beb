// Which admission webhooks a request reaches, as kube-apiserver's webhook predicates decide
// (k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/{rules,namespace,object}): the rules
// (operations, groups, versions, resources with subresources, scope), `matchPolicy`, and the
// namespace and object label selectors.

import { LabelSelector, type LabelSelectorObject } from '@kindex/core';
import type { Json } from '../storage/object-store.js';

/** One admission webhook of a Validating/MutatingWebhookConfiguration, with kube-apiserver's defaults applied. */
export interface AdmissionWebhook {
  readonly name: string;
  /** `configuration/name`: tells webhooks of the same name in two configurations apart (reinvocation). */
  readonly uid: string;
  readonly clientConfig: { readonly url?: string; readonly service?: Json; readonly caBundle?: string };
  readonly rules: readonly WebhookRule[];
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly matchPolicy: 'Equivalent' | 'Exact';
  readonly namespaceSelector: LabelSelector;
  readonly objectSelector: LabelSelector;
  readonly timeoutSeconds: number;
  readonly admissionReviewVersions: readonly string[];
  /** Mutating webhooks only. */
  readonly reinvocationPolicy: 'Never' | 'IfNeeded';
  /** CEL conditions that must all hold (webhook-match-conditions.ts). */
  readonly matchConditions: readonly Json[];
}

/** One `rules` entry of a webhook. */
export interface WebhookRule {
  readonly operations: readonly string[];
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  readonly resources: readonly string[];
  readonly scope: '*' | 'Cluster' | 'Namespaced';
}

/** What the rules look at in a request. */
export interface RuleAttributes {
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  /** '' for the main resource. */
  readonly subresource: string;
  /** Undefined for cluster-scoped objects. */
  readonly namespace: string | undefined;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** The webhooks of one configuration, defaulted as kube-apiserver's v1 defaults do. */
export function webhooksOf(configuration: Readonly<Json>, mutating: boolean): AdmissionWebhook[] {
  const configName = String((configuration['metadata'] as Json | undefined)?.['name'] ?? '');
  const hooks = Array.isArray(configuration['webhooks']) ? (configuration['webhooks'] as Json[]) : [];
  return hooks.map((h) => ({
    name: String(h['name'] ?? ''),
    uid: `${configName}/${String(h['name'] ?? '')}`,
    clientConfig: h['clientConfig'] ?? {},
    rules: (Array.isArray(h['rules']) ? (h['rules'] as Json[]) : []).map((r) => ({
      operations: strings(r['operations']),
      apiGroups: strings(r['apiGroups']),
      apiVersions: strings(r['apiVersions']),
      resources: strings(r['resources']),
      scope: r['scope'] === 'Cluster' || r['scope'] === 'Namespaced' ? r['scope'] : '*',
    })),
    failurePolicy: h['failurePolicy'] === 'Ignore' ? 'Ignore' : 'Fail',
    matchPolicy: h['matchPolicy'] === 'Exact' ? 'Exact' : 'Equivalent',
    namespaceSelector: LabelSelector.fromSelector((h['namespaceSelector'] ?? {}) as LabelSelectorObject),
    objectSelector: LabelSelector.fromSelector((h['objectSelector'] ?? {}) as LabelSelectorObject),
    timeoutSeconds: typeof h['timeoutSeconds'] === 'number' ? h['timeoutSeconds'] : 10,
    admissionReviewVersions: strings(h['admissionReviewVersions']),
    reinvocationPolicy: mutating && h['reinvocationPolicy'] === 'IfNeeded' ? 'IfNeeded' : 'Never',
    matchConditions: Array.isArray(h['matchConditions']) ? (h['matchConditions'] as Json[]) : [],
  }));
}

const matchesValue = (allowed: readonly string[], value: string): boolean => allowed.includes('*') || allowed.includes(value);

// `pods` matches the main resource only, `pods/status` one subresource, `*/status` that
// subresource of every resource, `pods/*` every subresource and the resource, `*/*` everything.
function matchesResource(patterns: readonly string[], resource: string, subresource: string): boolean {
  const wanted = subresource === '' ? resource : `${resource}/${subresource}`;
  return patterns.some((p) => {
    if (p === '*/*' || p === wanted) return true;
    if (p === '*') return subresource === '';
    const [res, sub] = p.split('/', 2);
    if (sub === undefined) return false;
    return (res === '*' || res === resource) && (sub === '*' || sub === subresource);
  });
}

/** Whether one rule covers a request (kube-apiserver's predicates/rules Matcher). */
export function ruleMatches(rule: WebhookRule, a: RuleAttributes): boolean {
  if (!matchesValue(rule.operations, a.operation)) return false;
  if (!matchesValue(rule.apiGroups, a.group) || !matchesValue(rule.apiVersions, a.version)) return false;
  if (!matchesResource(rule.resources, a.resource, a.subresource)) return false;
  const clusterScoped = a.namespace === undefined;
  return rule.scope === '*' || (rule.scope === 'Cluster') === clusterScoped;
}

/**
 * The version a webhook is to be called in, or undefined when its rules do not cover the request:
 * the requested version itself, or under `matchPolicy: Equivalent` another served version of the
 * same resource that a rule covers (the object is then converted to it).
 */
export function matchingVersion(hook: AdmissionWebhook, a: RuleAttributes, servedVersions: readonly string[]): string | undefined {
  if (hook.rules.some((r) => ruleMatches(r, a))) return a.version;
  if (hook.matchPolicy === 'Exact') return undefined;
  return servedVersions.find((v) => v !== a.version && hook.rules.some((r) => ruleMatches(r, { ...a, version: v })));
}

/**
 * Whether the selectors let a request through: `namespaceSelector` against the labels of the
 * object's namespace (never excludes cluster-scoped objects other than namespaces), and
 * `objectSelector` against the new or the old object's labels.
 */
export function selectorsMatch(
  hook: AdmissionWebhook,
  namespaceLabels: Readonly<Record<string, string>> | undefined,
  objectLabels: readonly (Readonly<Record<string, string>> | undefined)[],
): boolean {
  if (namespaceLabels !== undefined && !hook.namespaceSelector.isEmpty() && !hook.namespaceSelector.matches(namespaceLabels)) return false;
  if (hook.objectSelector.isEmpty()) return true;
  return objectLabels.some((labels) => labels !== undefined && hook.objectSelector.matches(labels));
}
