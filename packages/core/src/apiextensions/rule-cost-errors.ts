// kube-apiserver's limits on the estimated cost of x-kubernetes-validations, checked when a CRD
// is written (apiextensions-apiserver's validation.go): StaticEstimatedCostLimit per rule and per
// messageExpression, StaticEstimatedCRDCostLimit for a CRD version's total.
import type { ASTNode } from '@marcbachmann/cel-js';
import { isJsonObject } from '../resource/is-json-object.js';
import {
  add,
  childCardinality,
  estimateCost,
  PER_CRD_COST_LIMIT,
  PER_EXPRESSION_COST_LIMIT,
  ruleCardinality,
  sub,
  times,
} from './cel-cost.js';
import { fieldError, type Schema, type SchemaFieldError } from './schema-field-error.js';

/** kube-apiserver's getCostErrorMessage. */
function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const shown = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

interface RuleCost {
  readonly field: string;
  readonly cost: number;
  readonly expression: string;
}

/**
 * The causes of kube-apiserver's 422 for a CRD version whose rules cost too much: each rule (or
 * messageExpression) above the per-expression limit, then, when the version's total is above the
 * CRD limit, the most expensive rules (up to 4, each at least 1% of that limit) and the schema.
 * `parse` returns a rule's AST, or undefined when it does not compile (cost 0, reported elsewhere).
 */
export function ruleCostErrors(schema: Schema, path: string, parse: (expression: string) => ASTNode | undefined): SchemaFieldError[] {
  const causes: SchemaFieldError[] = [];
  const costs: RuleCost[] = [];
  const visit = (node: Schema, at: string, cardinality: number | undefined): void => {
    const below = childCardinality(node, cardinality);
    const properties = isJsonObject(node['properties']) ? node['properties'] : {};
    for (const [name, prop] of Object.entries(properties)) if (isJsonObject(prop)) visit(prop, `${at}.properties[${name}]`, below);
    const items = sub(node, 'items');
    if (items !== undefined) visit(items, `${at}.items`, below);
    const values = sub(node, 'additionalProperties');
    if (values !== undefined) visit(values, `${at}.additionalProperties`, below);
    const rules = node['x-kubernetes-validations'];
    if (!Array.isArray(rules)) return;
    const runs = ruleCardinality(node, cardinality);
    rules.forEach((rule: { rule?: string; messageExpression?: string }, i) => {
      for (const [key, expression, name] of [
        ['rule', rule.rule, 'estimated rule cost'],
        ['messageExpression', rule.messageExpression, 'estimated messageExpression cost'],
      ] as const) {
        if (typeof expression !== 'string') continue;
        const ast = parse(expression);
        if (ast === undefined) continue;
        const field = `${at}.x-kubernetes-validations[${i}].${key}`;
        const cost = times(estimateCost(ast, node), runs);
        if (cost > PER_EXPRESSION_COST_LIMIT) {
          const message = costErrorMessage(name, cost, PER_EXPRESSION_COST_LIMIT);
          causes.push({
            reason: 'FieldValueForbidden',
            field,
            message: `Forbidden: ${message}`,
            summary: message,
            cost: { estimated: cost, limit: PER_EXPRESSION_COST_LIMIT, expression },
          });
        }
        costs.push({ field, cost, expression });
      }
    });
  };
  visit(schema, path, 1);
  const total = costs.reduce((sum, c) => add(sum, c.cost), 0);
  if (total > PER_CRD_COST_LIMIT) {
    const expensive = costs
      .filter((c) => c.cost >= PER_CRD_COST_LIMIT / 100)
      .sort((a, b) => b.cost - a.cost)
      .slice(0, 4);
    for (const { field, cost, expression } of expensive) {
      const summary = 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema';
      causes.push({
        ...fieldError('FieldValueForbidden', field, `Forbidden: ${summary}`, summary),
        cost: { estimated: cost, limit: PER_CRD_COST_LIMIT, expression },
      });
    }
    const summary = costErrorMessage(
      'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema',
      total,
      PER_CRD_COST_LIMIT,
    );
    causes.push({
      ...fieldError('FieldValueForbidden', path, `Forbidden: ${summary}`, summary),
      cost: { estimated: total, limit: PER_CRD_COST_LIMIT, expression: '' },
    });
  }
  return causes;
}
