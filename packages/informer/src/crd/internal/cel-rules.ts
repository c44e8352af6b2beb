// x-kubernetes-validations evaluated client-side with @marcbachmann/cel-js: zero dependencies,
// the CEL string extensions Kubernetes enables (lowerAscii, split, ...) built in, and about 2 µs
// an evaluation here. @bufbuild/cel (compared on the same rules) lacked those string functions and
// brings protobuf in. Kubernetes' list library (isSorted, sum, min, max, indexOf, lastIndexOf) is
// registered below; its url, ip, cidr, quantity and semver libraries are not, so a rule using
// them is skipped client-side rather than reported as a violation (the server judges it).
import { Environment, type ParseResult } from '@marcbachmann/cel-js';
import type { JsonSchemaProps, ValidationRule } from '../json-schema-props.js';

import type { FieldViolation } from '../custom-resource-validation-error.js';

/** A field path and what is wrong there, as kube-apiserver reports it (`spec.replicas`). */
export type FieldProblem = FieldViolation;

type Value = unknown;

function compare(a: Value, b: Value): number {
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

const environment = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false })
  .registerFunction('list.isSorted(): bool', (list: Value[]) => list.every((v, i) => i === 0 || compare(list[i - 1], v) <= 0))
  .registerFunction('list.sum(): dyn', (list: Value[]) => (list.length === 0 ? 0n : list.reduce((a, b) => (a as bigint) + (b as bigint))))
  .registerFunction('list.min(): dyn', (list: Value[]) => extreme(list, -1))
  .registerFunction('list.max(): dyn', (list: Value[]) => extreme(list, 1))
  .registerFunction('list.indexOf(dyn): int', (list: Value[], v: Value) => BigInt(list.findIndex((x) => x === v)))
  .registerFunction('list.lastIndexOf(dyn): int', (list: Value[], v: Value) => BigInt(list.findLastIndex((x) => x === v)));

function extreme(list: Value[], sign: number): Value {
  if (list.length === 0) throw new Error('min/max of an empty list');
  return list.reduce((a, b) => (compare(b, a) * sign > 0 ? b : a));
}

/** cel-js's error for a call of a function (not an operator such as `_+_`) it does not have. */
const UNKNOWN_FUNCTION = /found no matching overload for '(?:dyn\.)?[A-Za-z]\w*\(/;

const programs = new Map<string, ParseResult>();

function program(expression: string): ParseResult {
  let p = programs.get(expression);
  if (p === undefined) {
    p = environment.parse(expression);
    programs.set(expression, p);
  }
  return p;
}

/** Parses every rule and message expression; returns one problem per expression that does not parse. */
export function compileValidationRules(rules: readonly ValidationRule[]): string[] {
  const problems: string[] = [];
  rules.forEach((r, i) => {
    if (typeof r.rule !== 'string' || r.rule === '') {
      problems.push(`[${i}]: rule must be a non-empty CEL expression`);
      return;
    }
    for (const [field, expression] of [
      ['rule', r.rule],
      ['messageExpression', r.messageExpression],
    ] as const) {
      if (expression === undefined) continue;
      try {
        program(expression);
      } catch (error) {
        problems.push(`[${i}].${field} ${JSON.stringify(expression)} does not parse: ${(error as Error).message.split('\n')[0]}`);
      }
    }
    if (r.message !== undefined && r.message.includes('\n')) problems.push(`[${i}].message must be one line`);
  });
  return problems;
}

/** Whether a rule compares with the old object: the server runs it only on update. */
export function isTransitionRule(rule: ValidationRule): boolean {
  return /\boldSelf\b/.test(rule.rule);
}

/**
 * Evaluates the rules of one node. `old` is the correlated old value (undefined on create or
 * when the node has no counterpart): transition rules are skipped then, as on the server.
 */
export function evaluateRules(node: JsonSchemaProps, value: Value, old: Value, field: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const self = celValue(node, value);
  for (const rule of node['x-kubernetes-validations'] ?? []) {
    const transition = isTransitionRule(rule);
    if (transition && old === undefined && !rule.optionalOldSelf) continue;
    const context: Record<string, unknown> = { self };
    if (transition) context.oldSelf = old === undefined ? undefined : celValue(node, old);
    const where = rule.fieldPath ? `${field}${field === '' ? rule.fieldPath.replace(/^\./, '') : rule.fieldPath}` : field;
    let holds: unknown;
    try {
      holds = program(rule.rule)(context);
    } catch (error) {
      // A function of a Kubernetes library not registered here (quantity, ip, url, ...): the
      // rule cannot be checked client-side, and the server, which has it, judges it.
      if (UNKNOWN_FUNCTION.test((error as Error).message)) continue;
      problems.push({
        field: where,
        message: `rule ${JSON.stringify(rule.rule)} could not be evaluated: ${(error as Error).message.split('\n')[0]}`,
      });
      continue;
    }
    if (holds === true) continue;
    problems.push({ field: where, message: messageOf(rule, context) });
  }
  return problems;
}

function messageOf(rule: ValidationRule, context: Record<string, unknown>): string {
  if (rule.messageExpression !== undefined) {
    try {
      const message: unknown = program(rule.messageExpression)(context);
      if (typeof message === 'string' && message.trim() !== '') return message;
    } catch {
      // The server falls back to `message` (or the rule) when messageExpression fails.
    }
  }
  return rule.message ?? `failed rule: ${rule.rule}`;
}

/** The CEL form of a JSON value: integers as int (bigint), as the server types them from the schema. */
function celValue(node: JsonSchemaProps | undefined, value: Value): Value {
  if (value === null || value === undefined) return value;
  if (typeof value === 'number') {
    const integral =
      node?.type === 'integer' || node?.['x-kubernetes-int-or-string'] || (node?.type === undefined && Number.isInteger(value));
    return integral && Number.isInteger(value) ? BigInt(value) : value;
  }
  if (Array.isArray(value)) return value.map((v) => celValue(node?.items, v));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const child = node?.properties?.[k] ?? (typeof node?.additionalProperties === 'object' ? node.additionalProperties : undefined);
      out[k] = celValue(child, v);
    }
    return out;
  }
  return value;
}
