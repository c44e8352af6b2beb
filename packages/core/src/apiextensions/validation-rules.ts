// x-kubernetes-validations of custom objects, as kube-apiserver enforces them on create, update,
// patch and apply (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go): each
// rule runs with `self` bound to its node; a transition rule (one naming oldSelf) runs only on
// update, where the node has an old value (same property, same key of a map list, same set item).
// Rules compile once per served CRD version: the programs hang off the version's schema nodes,
// which are built anew for each CRD write, so the cache is in effect keyed by the CRD's uid,
// resourceVersion and version and never outlives them.
//
// What this environment cannot check: a rule calling one of Kubernetes' ip, cidr, semver or
// authz libraries (not provided here) compiles on kube-apiserver. ruleCompileErrors reports it
// with `unsupported` set, so that each caller applies the one policy of the module doc: the
// embedded API server refuses the CRD (it could not enforce the rule), customResource() accepts
// it, and validateCustomObject leaves such a rule to the server (it is not evaluated client-side).

import { Optional, type ParseResult } from '@marcbachmann/cel-js';
import { isJsonObject } from '../resource/is-json-object.js';
import { actualCost, estimateCost } from './cel-cost.js';
import { celEnvironment } from './cel-environment.js';
import { ruleCostErrors } from './rule-cost-errors.js';
import { fieldError, type Schema, type SchemaFieldError } from './schema-field-error.js';

interface Rule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
  readonly optionalOldSelf?: boolean;
}

interface CompiledRule {
  readonly spec: Rule;
  readonly program: ParseResult;
  readonly messageProgram: ParseResult | undefined;
  readonly transition: boolean;
  /** The rule's estimated cost per call; only above PER_CALL_COST_LIMIT is its actual cost worth computing. */
  readonly estimatedCost: number;
  /** The rule calls a library this environment lacks (see the file comment): it is not evaluated. */
  readonly unsupported: boolean;
}

/** kube-apiserver's limit on one evaluation of one rule (celconfig.PerCallLimit). */
const PER_CALL_COST_LIMIT = 1_000_000;

// Thrown out of the walk when a rule's actual cost is above the per-call limit: kube-apiserver
// then runs no further rule on the object.
class CallCostExceeded extends Error {
  constructor(readonly refusal: SchemaFieldError) {
    super(refusal.message);
  }
}

const compiled = new WeakMap<Schema, readonly CompiledRule[]>();

function rulesOf(schema: Schema): readonly Rule[] {
  const rules = schema['x-kubernetes-validations'];
  return Array.isArray(rules) ? (rules as Rule[]) : [];
}

function compiledRules(schema: Schema): readonly CompiledRule[] {
  let rules = compiled.get(schema);
  if (rules === undefined) {
    rules = rulesOf(schema).flatMap((spec): CompiledRule[] => {
      let program: ParseResult;
      try {
        program = celEnvironment.parse(spec.rule);
      } catch {
        return []; // refused when the CRD was written (ruleCompileErrors)
      }
      let messageProgram: ParseResult | undefined;
      try {
        messageProgram = spec.messageExpression === undefined ? undefined : celEnvironment.parse(spec.messageExpression);
      } catch {
        messageProgram = undefined; // as one that fails: the message falls back to `message`
      }
      const checked = celEnvironment.check(spec.rule);
      return [
        {
          spec,
          program,
          estimatedCost: estimateCost(program.ast, schema),
          messageProgram,
          transition: /\boldSelf\b/.test(spec.rule),
          unsupported: !checked.valid && MISSING_LIBRARY.test(checked.error?.message ?? ''),
        },
      ];
    });
    compiled.set(schema, rules);
  }
  return rules;
}

// Go's encoding/json of the internal ValidationRule, which kube-apiserver prints as the invalid value.
function goRule(r: Rule): string {
  return JSON.stringify({
    Rule: r.rule ?? '',
    Message: r.message ?? '',
    MessageExpression: r.messageExpression ?? '',
    Reason: r.reason ?? null,
    FieldPath: r.fieldPath ?? '',
    OptionalOldSelf: r.optionalOldSelf ?? null,
  }).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

const MISSING_LIBRARY = /found no matching overload for '(?:dyn\.)?(?:ip|cidr|isIP|isCIDR|semver|isSemver|authorizer)\(/;

/**
 * A rule or messageExpression that does not compile in kindex's CEL environment; `unsupported`
 * when only because it calls a Kubernetes library this environment lacks (kube-apiserver has it).
 *
 * @example
 * ```ts
 * import { validationRuleErrors, type RuleCompileError } from '@kindex/core/internal';
 *
 * const schema = { type: 'object', 'x-kubernetes-validations': [{ rule: 'isCIDR(self.net)' }] };
 * const lacking: RuleCompileError[] = validationRuleErrors(schema, 'openAPIV3Schema').compile.filter((e) => e.unsupported);
 * ```
 */
export interface RuleCompileError extends SchemaFieldError {
  readonly unsupported: boolean;
}

/**
 * The rules of a CRD version's schema that do not compile, as causes of the CRD's 422; `path` is
 * where kube-apiserver reports the schema (`spec.validation.openAPIV3Schema`).
 */
export function ruleCompileErrors(schema: Schema, path: string): RuleCompileError[] {
  const causes: RuleCompileError[] = [];
  rulesOf(schema).forEach((r, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    for (const [key, expression, what] of [
      ['rule', r.rule, 'compilation failed'],
      ['messageExpression', r.messageExpression, 'messageExpression compilation failed'],
    ] as const) {
      if (expression === undefined) continue;
      let stage = 'does not parse';
      try {
        celEnvironment.parse(expression);
        stage = 'does not compile';
        // Type checking with self as dyn catches unknown functions and mistyped operands.
        const checked = celEnvironment.check(expression);
        if (!checked.valid) throw checked.error ?? new Error('does not type-check');
      } catch (error) {
        const message = (error as Error).message.split('\n')[0]!;
        const unsupported = MISSING_LIBRARY.test(message);
        const hint = unsupported
          ? " (kindex's CEL environment lacks Kubernetes' ip, cidr, semver and authz libraries, so the embedded API server cannot enforce this rule: run this test on the real kube-apiserver, KINDEX_APISERVER=real)"
          : '';
        causes.push({
          ...fieldError(
            'FieldValueInvalid',
            `${at}.${key}`,
            `Invalid value: ${goRule(r)}: ${what}: ERROR: <input>: ${message}${hint}`,
            `${key} ${JSON.stringify(expression)} ${stage}: ${message}`,
          ),
          unsupported,
        });
      }
    }
  });
  const properties = isJsonObject(schema['properties']) ? schema['properties'] : {};
  for (const [k, sub] of Object.entries(properties))
    if (isJsonObject(sub)) causes.push(...ruleCompileErrors(sub, `${path}.properties[${k}]`));
  if (isJsonObject(schema['items'])) causes.push(...ruleCompileErrors(schema['items'], `${path}.items`));
  if (isJsonObject(schema['additionalProperties']))
    causes.push(...ruleCompileErrors(schema['additionalProperties'], `${path}.additionalProperties`));
  return causes;
}

/**
 * The rules and messageExpressions of a CRD version's schema whose estimated cost is above
 * kube-apiserver's limits, as causes of the CRD's 422 (see cel-cost.ts).
 */
export function ruleCostCauses(schema: Schema, path: string): SchemaFieldError[] {
  return ruleCostErrors(schema, path, (expression) => {
    try {
      const parsed = celEnvironment.parse(expression);
      return celEnvironment.check(expression).valid ? parsed.ast : undefined;
    } catch {
      return undefined; // reported by ruleCompileErrors
    }
  });
}

/**
 * The rules `obj` breaks, with kube-apiserver's fields and wording. `old` is the stored object on
 * update, undefined on create.
 */
export function ruleViolations(obj: unknown, old: unknown, schema: Schema): SchemaFieldError[] {
  const causes: SchemaFieldError[] = [];
  try {
    validateNode(obj, old, schema, '', causes);
  } catch (error) {
    if (!(error instanceof CallCostExceeded)) throw error;
    causes.push(error.refusal);
  }
  return causes;
}

function validateNode(value: unknown, old: unknown, schema: Schema, path: string, causes: SchemaFieldError[]): void {
  if (value === null || value === undefined) return;
  const rules = compiledRules(schema);
  if (rules.length > 0) {
    const self = celValue(value, schema);
    const oldSelf = old === undefined || old === null ? undefined : celValue(old, schema);
    for (const r of rules) {
      if (r.unsupported) continue;
      if (r.transition && oldSelf === undefined && r.spec.optionalOldSelf !== true) continue;
      // With optionalOldSelf the rule also runs on create, oldSelf then an empty optional.
      const old = r.spec.optionalOldSelf === true ? (oldSelf === undefined ? Optional.none() : Optional.of(oldSelf)) : oldSelf;
      if (r.estimatedCost > PER_CALL_COST_LIMIT && actualCost(r.program.ast, schema, value, PER_CALL_COST_LIMIT) > PER_CALL_COST_LIMIT) {
        const label = r.spec.message?.trim() ? r.spec.message.trim() : r.spec.rule.trim();
        const summary = `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${label}`;
        throw new CallCostExceeded(
          fieldError(
            'FieldValueInvalid',
            path,
            `Invalid value: "${typeof schema['type'] === 'string' ? schema['type'] : 'object'}": ${summary}`,
            summary,
          ),
        );
      }
      causes.push(...evaluate(r, { self, oldSelf: old }, value, schema, path));
    }
  }
  if (Array.isArray(value)) {
    const items = schema['items'];
    if (!isJsonObject(items)) return;
    const match = correlate(schema, Array.isArray(old) ? old : undefined);
    value.forEach((v, i) => validateNode(v, match(v), items, `${path}[${i}]`, causes));
    return;
  }
  if (!isJsonObject(value)) return;
  const properties = isJsonObject(schema['properties']) ? schema['properties'] : {};
  const additional = schema['additionalProperties'];
  const oldObject = isJsonObject(old) ? old : undefined;
  // A node's own rules first, then its fields; kube-apiserver walks fields in Go's random map
  // order, name order keeps these causes the same from run to run.
  for (const k of Object.keys(value).sort()) {
    const sub = properties[k] ?? additional;
    if (isJsonObject(sub)) validateNode(value[k], oldObject?.[k], sub, path === '' ? k : `${path}.${k}`, causes);
  }
}

// The old item an array item is compared with: for a map list the one with the same keys, for a
// set the equal one; items of an atomic list have none, so their transition rules do not run.
function correlate(schema: Schema, old: unknown[] | undefined): (item: unknown) => unknown {
  if (old === undefined) return () => undefined;
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set') return (item) => old.find((o) => JSON.stringify(o) === JSON.stringify(item));
  const keys = schema['x-kubernetes-list-map-keys'];
  if (listType === 'map' && Array.isArray(keys)) {
    return (item) =>
      isJsonObject(item)
        ? old.find((o) => isJsonObject(o) && (keys as string[]).every((k) => JSON.stringify(o[k]) === JSON.stringify(item[k])))
        : undefined;
  }
  return () => undefined;
}

function evaluate(r: CompiledRule, context: Record<string, unknown>, value: unknown, schema: Schema, path: string): SchemaFieldError[] {
  const field = r.spec.fieldPath ? `${path}${path === '' ? r.spec.fieldPath.replace(/^\./, '') : r.spec.fieldPath}` : path;
  let holds: unknown;
  try {
    holds = r.program(context);
  } catch (error) {
    // Reported at the rule's node with its type, in cel-go's words (`no such key: min`).
    const first = (error as Error).message.split('\n')[0]!;
    const reason = first.replace(/^No such key/, 'no such key');
    const label = r.spec.message?.trim() ? r.spec.message : r.spec.rule;
    const type = typeof schema['type'] === 'string' ? schema['type'] : 'object';
    return [
      fieldError(
        'FieldValueInvalid',
        path,
        `Invalid value: "${type}": ${reason} evaluating rule: ${label}`,
        `rule ${JSON.stringify(r.spec.rule)} could not be evaluated: ${first}`,
      ),
    ];
  }
  if (holds === true) return [];
  const message = messageOf(r, context);
  switch (r.spec.reason) {
    case 'FieldValueForbidden':
      return [fieldError('FieldValueForbidden', field, `Forbidden: ${message}`, message)];
    case 'FieldValueRequired':
      return [fieldError('FieldValueRequired', field, `Required value: ${message}`, message)];
    case 'FieldValueDuplicate':
      return [fieldError('FieldValueDuplicate', field, `Duplicate value: ${shown(value, schema)}${message}`, message)];
    default:
      return [fieldError('FieldValueInvalid', field, `Invalid value: ${shown(value, schema)}${message}`, message)];
  }
}

// kube-apiserver shows a scalar's value before the message (`"b": `, `7: `) and omits objects and lists.
function shown(value: unknown, schema: Schema): string {
  if (isJsonObject(value) || Array.isArray(value)) return '';
  if (typeof value === 'string' && schema['x-kubernetes-int-or-string'] !== true) return `${JSON.stringify(value)}: `;
  return `${typeof value === 'string' ? JSON.stringify(value) : String(value)}: `;
}

function messageOf(r: CompiledRule, context: Record<string, unknown>): string {
  if (r.messageProgram !== undefined) {
    try {
      const message: unknown = r.messageProgram(context);
      if (typeof message === 'string' && message.trim() !== '' && !message.includes('\n')) return message;
    } catch {
      // kube-apiserver falls back to `message`, or the rule, when messageExpression fails.
    }
  }
  return r.spec.message ?? `failed rule: ${r.spec.rule}`;
}

// CEL's view of a JSON value: integers typed `integer` (or int-or-string numbers) are int, as
// kube-apiserver types them from the schema, other numbers double.
function celValue(value: unknown, schema: Schema | undefined): unknown {
  if (typeof value === 'number') {
    const integral = schema?.['type'] === 'integer' || schema?.['x-kubernetes-int-or-string'] === true;
    return integral && Number.isInteger(value) ? BigInt(value) : value;
  }
  if (Array.isArray(value)) {
    const items = isJsonObject(schema?.['items']) ? schema['items'] : undefined;
    return value.map((v) => celValue(v, items));
  }
  if (isJsonObject(value)) {
    const properties = isJsonObject(schema?.['properties']) ? schema['properties'] : {};
    const additional = isJsonObject(schema?.['additionalProperties']) ? schema['additionalProperties'] : undefined;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const sub = properties[k];
      out[k] = celValue(v, isJsonObject(sub) ? sub : additional);
    }
    return out;
  }
  return value;
}

/**
 * What kube-apiserver refuses in the `x-kubernetes-validations` of a CRD version's schema when
 * the CRD is written: the rules and messageExpressions that do not compile (`compile`), and those
 * whose estimated cost is above its limits (`cost`: 10,000,000 per expression, 100,000,000 for
 * the version), each cause with kube-apiserver's field path under `path` and its message.
 *
 * @example
 * ```ts
 * import { validationRuleErrors } from '@kindex/core/internal';
 *
 * // An unbounded list of unbounded strings: kube-apiserver refuses the rule as too expensive.
 * const schema = { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: "self.all(n, n.matches('^a.*z$'))" }] };
 * const { compile, cost } = validationRuleErrors(schema, 'spec.validation.openAPIV3Schema');
 * for (const e of cost) console.log(e.field, e.cost?.estimated, e.cost?.limit);
 * ```
 */
export function validationRuleErrors(
  schema: object,
  path: string,
): { readonly compile: readonly RuleCompileError[]; readonly cost: readonly SchemaFieldError[] } {
  return { compile: ruleCompileErrors(schema as Schema, path), cost: ruleCostCauses(schema as Schema, path) };
}
