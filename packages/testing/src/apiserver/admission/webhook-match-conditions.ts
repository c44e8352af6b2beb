// `matchConditions` of admission webhooks: CEL expressions over `object`, `oldObject` and
// `request` that must all hold for the webhook to be called, evaluated with the server's CEL
// environment (@kindex/core's kubernetesCelEnvironment), as kube-apiserver's webhook matchconditions matcher does. One
// false condition skips the webhook; an evaluation error fails the request with 403 under
// `failurePolicy: Fail` and skips the webhook under `Ignore`. The `authorizer` variable checks
// what the requesting user may do (webhook-match-authorizer.ts).

import type { Json } from '../storage/object-store.js';
import type { StatusCause } from '../storage/status-error.js';
import { matchConditionEnvironment, type CelAuthorizer } from './webhook-match-authorizer.js';

type Program = (context: Record<string, unknown>) => unknown;

const compiled = new Map<string, Program>();

function compile(expression: string): Program {
  let program = compiled.get(expression);
  if (program === undefined) {
    program = matchConditionEnvironment.parse(expression);
    compiled.set(expression, program);
  }
  return program;
}

/** The 422 causes of a webhook's `matchConditions` (at `webhooks[i].matchConditions`). */
export function matchConditionCauses(conditions: unknown, at: string): StatusCause[] {
  if (conditions === undefined) return [];
  const list = Array.isArray(conditions) ? (conditions as Json[]) : [];
  const causes: StatusCause[] = [];
  if (list.length > 64)
    causes.push({ reason: 'FieldValueTooMany', field: at, message: `Too many: ${list.length}: must have at most 64 items` });
  const names = new Set<string>();
  list.forEach((c, i) => {
    const name = c['name'];
    const expression = c['expression'];
    if (typeof name !== 'string' || name === '')
      causes.push({ reason: 'FieldValueRequired', field: `${at}[${i}].name`, message: 'Required value' });
    else if (names.has(name))
      causes.push({ reason: 'FieldValueDuplicate', field: `${at}[${i}].name`, message: `Duplicate value: ${JSON.stringify(name)}` });
    else names.add(name);
    if (typeof expression !== 'string' || expression === '') {
      causes.push({ reason: 'FieldValueRequired', field: `${at}[${i}].expression`, message: 'Required value' });
      return;
    }
    try {
      compile(expression);
      const checked = matchConditionEnvironment.check(expression);
      if (!checked.valid) throw checked.error ?? new Error('does not type-check');
    } catch (error) {
      const why = (error as Error).message.split('\n')[0];
      causes.push({
        reason: 'FieldValueInvalid',
        field: `${at}[${i}].expression`,
        message: `Invalid value: ${JSON.stringify(expression)}: compilation failed: ${why}`,
      });
    }
  });
  return causes;
}

// CEL's view of JSON: whole numbers are ints (JSON has no other way to say so), as kube-apiserver
// decodes an object's integers.
function celValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(celValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, celValue(v)]));
  }
  return value;
}

/** What the conditions decided: call the webhook, skip it, or fail (with the evaluation errors). */
export type MatchDecision = { readonly kind: 'call' } | { readonly kind: 'skip' } | { readonly kind: 'error'; readonly message: string };

/**
 * Evaluates a webhook's conditions on one request; `request` is the AdmissionReview request it
 * would get, `authorizer` checks as its user.
 */
export function evaluateMatchConditions(conditions: readonly Json[], request: Json, authorizer: CelAuthorizer): MatchDecision {
  if (conditions.length === 0) return { kind: 'call' };
  const context = {
    object: celValue(request['object'] ?? null),
    oldObject: celValue(request['oldObject'] ?? null),
    request: celValue(request),
    authorizer,
  };
  const errors: string[] = [];
  for (const c of conditions) {
    const expression = String(c['expression']);
    try {
      const result = compile(expression)(context);
      if (result === false) return { kind: 'skip' };
      if (result !== true) errors.push(`expression '${expression}' resulted in error: expected a bool, got ${typeof result}`);
    } catch (error) {
      const why = (error as Error).message.split('\n')[0]!.replace(/^No such key/, 'no such key');
      errors.push(`expression '${expression}' resulted in error: ${why}`);
    }
  }
  if (errors.length === 0) return { kind: 'call' };
  return { kind: 'error', message: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` };
}
