// The static cost of an x-kubernetes-validations rule, as kube-apiserver estimates it when a CRD
// is written (cel-go's checker/cost.go with the sizes k8s.io/apiserver's SchemaDeclType gives
// each schema node), so that the embedded server refuses the same unbounded rules:
// - a string without maxLength may be as long as a request (3 MiB), a list without maxItems or a
//   map without maxProperties may hold as many of its smallest items as fit in a request;
// - a comprehension (all, exists, map, filter) costs its range size times its body, `matches`
//   the product of string and pattern lengths, `contains` and comparisons of strings their length;
// - a rule under lists and maps runs once per element: its cost is multiplied by their bounds.
// Only the upper bound is computed (the limits compare it). Functions of the Kubernetes library
// this file does not know cost 1 plus their arguments, cel-go's default for O(1) functions.
import type { ASTNode } from '@marcbachmann/cel-js';
import { isJsonObject } from '../resource/is-json-object.js';
import type { Schema } from './schema-field-error.js';

/** kube-apiserver's per-expression limit (StaticEstimatedCostLimit). */
export const PER_EXPRESSION_COST_LIMIT = 10_000_000;
/** kube-apiserver's limit for the sum over a CRD version's rules (StaticEstimatedCRDCostLimit). */
export const PER_CRD_COST_LIMIT = 100_000_000;
/** cel-go's math.MaxUint64 saturation, as a float: every estimate is capped at it. */
export const MAX_COST = 2 ** 64;

const MAX_REQUEST_SIZE = 3 * 1024 * 1024;
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const LIST_CREATE = 10;
const MAP_CREATE = 30;
// Functions whose cost is a traversal of their receiver (k8s.io/apiserver/pkg/cel/library/cost.go).
const RECEIVER_TRAVERSAL = new Set([
  'lowerAscii',
  'upperAscii',
  'trim',
  'reverse',
  'charAt',
  'indexOf',
  'lastIndexOf',
  'substring',
  'replace',
  'split',
  'join',
  'find',
  'findAll',
  'isSorted',
  'sum',
  'min',
  'max',
  'format',
]);

/**
 * An estimate of one expression: its cost upper bound, its size upper bound and, when known, its
 * schema and (at run time) its actual value, whose size then replaces the schema's bound.
 */
interface Estimate {
  readonly cost: number;
  readonly size: number | undefined;
  readonly schema: Schema | undefined;
  readonly value?: { readonly actual: unknown };
}

export const add = (a: number, b: number): number => Math.min(MAX_COST, a + b);
export const times = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : Math.min(MAX_COST, a * b));
const byFactor = (size: number, factor: number): number => Math.min(MAX_COST, Math.ceil(size * factor));

export function sub(schema: Schema | undefined, key: 'items' | 'additionalProperties'): Schema | undefined {
  const s = schema?.[key];
  return isJsonObject(s) ? s : undefined;
}

/** The smallest JSON a value of `schema` serializes to (DeclType.MinSerializedSize). */
export function minSerializedSize(schema: Schema): number {
  if (schema['x-kubernetes-int-or-string'] === true) return 1;
  switch (schema['type']) {
    case 'string':
      return schema['format'] === 'duration' ? 3 : schema['format'] === 'date' ? 12 : schema['format'] === 'date-time' ? 21 : 2;
    case 'boolean':
      return 4;
    case 'integer':
    case 'number':
      return 1;
    case 'object': {
      if (sub(schema, 'additionalProperties') !== undefined) return 2;
      const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
      const properties = isJsonObject(schema['properties']) ? schema['properties'] : {};
      let size = 2;
      for (const [name, prop] of Object.entries(properties)) {
        if (isJsonObject(prop) && required.has(name) && prop['default'] === undefined) size += name.length + minSerializedSize(prop) + 4;
      }
      return size;
    }
    default:
      return 2;
  }
}

/** The most elements (characters, items, properties) a value of `schema` may have (DeclType.MaxElements). */
export function maxElements(schema: Schema): number {
  const maxLength = typeof schema['maxLength'] === 'number' ? Math.max(0, schema['maxLength']) : undefined;
  if (schema['x-kubernetes-int-or-string'] === true) return maxLength !== undefined ? maxLength * 4 : MAX_REQUEST_SIZE - 2;
  switch (schema['type']) {
    case 'string': {
      const format = schema['format'];
      if (format === 'byte') return maxLength ?? MAX_REQUEST_SIZE - 2;
      if (format === 'duration' || format === 'date-time') return 32;
      if (format === 'date') return 12;
      if (maxLength !== undefined) return maxLength * 4;
      const values = Array.isArray(schema['enum']) ? (schema['enum'] as unknown[]) : [];
      if (values.length > 0) return Math.max(0, ...values.map((v) => (typeof v === 'string' ? v.length : 0)));
      return MAX_REQUEST_SIZE - 2;
    }
    case 'array': {
      const items = sub(schema, 'items');
      if (typeof schema['maxItems'] === 'number') return Math.max(0, schema['maxItems']);
      return items === undefined ? 0 : Math.floor((MAX_REQUEST_SIZE - 2) / (minSerializedSize(items) + 1));
    }
    case 'object': {
      const values = sub(schema, 'additionalProperties');
      if (values === undefined) return 0;
      if (typeof schema['maxProperties'] === 'number') return Math.max(0, schema['maxProperties']);
      return Math.floor((MAX_REQUEST_SIZE - 2) / (minSerializedSize(values) + 6));
    }
    default:
      return 0;
  }
}

/**
 * How many times a rule on `schema` may run per object: the bounds of the lists and maps above it
 * (`parentCardinality`, undefined when one is unbounded), else as many of its smallest values as
 * fit in a request.
 */
export function ruleCardinality(schema: Schema, parentCardinality: number | undefined): number {
  return parentCardinality ?? Math.floor(MAX_REQUEST_SIZE / (minSerializedSize(schema) + 1));
}

/** The factor by which `schema` multiplies its children's cardinality; undefined when unbounded. */
export function childCardinality(schema: Schema, cardinality: number | undefined): number | undefined {
  if (cardinality === undefined) return undefined;
  if (schema['type'] === 'array')
    return typeof schema['maxItems'] === 'number' ? times(cardinality, Math.max(0, schema['maxItems'])) : undefined;
  if (schema['type'] === 'object' && sub(schema, 'additionalProperties') !== undefined) {
    return typeof schema['maxProperties'] === 'number' ? times(cardinality, Math.max(0, schema['maxProperties'])) : undefined;
  }
  return cardinality;
}

/**
 * The estimated cost upper bound of one evaluation of `ast` with `self` of `selfSchema`; 0 for an
 * expression this model cannot walk, so that a gap in it never refuses a CRD kube-apiserver takes.
 */
export function estimateCost(ast: ASTNode, selfSchema: Schema): number {
  try {
    return new Coster(selfSchema, undefined).estimate(ast, new Map()).cost;
  } catch {
    return 0;
  }
}

/**
 * The cost of evaluating `ast` on the value `self`: the same model with the actual sizes of
 * strings, lists and maps, each comprehension summed over its actual elements. cel-go counts
 * while evaluating and stops a loop that short-circuits; this bound does not, so it is only
 * worth asking when {@link estimateCost} is above the per-call limit.
 */
export function actualCost(ast: ASTNode, selfSchema: Schema, self: unknown, limit = MAX_COST): number {
  try {
    return new Coster(selfSchema, { actual: self }, limit).estimate(ast, new Map()).cost;
  } catch {
    return 0;
  }
}

class Coster {
  constructor(
    private readonly self: Schema,
    private readonly selfValue: { readonly actual: unknown } | undefined,
    // A loop over actual elements stops adding once above it: the caller only asks "above the limit?".
    private readonly limit = MAX_COST,
  ) {}

  estimate(node: ASTNode, locals: ReadonlyMap<string, Estimate>): Estimate {
    const e = (n: ASTNode): Estimate => this.estimate(n, locals);
    switch (node.op) {
      case 'value':
        return { cost: 0, size: literalSize(node.args), schema: undefined };
      case 'id': {
        const local = locals.get(node.args);
        if (local !== undefined) return { ...local, cost: 1 };
        if (node.args === 'self') return sized(1, this.self, this.selfValue);
        if (node.args === 'oldSelf') return sized(1, this.self);
        return { cost: 1, size: undefined, schema: undefined };
      }
      case '.':
      case '.?': {
        const [operand, field] = node.args;
        const target = e(operand);
        const properties = target.schema?.['properties'];
        const fieldSchema =
          isJsonObject(properties) && isJsonObject(properties[field])
            ? (properties[field] as Schema)
            : (sub(target.schema, 'additionalProperties') ?? (target.schema?.['type'] === 'object' ? IMPLICIT_FIELDS[field] : undefined));
        const fieldValue =
          target.value !== undefined && isJsonObject(target.value.actual) ? { actual: target.value.actual[field] } : undefined;
        return sized(add(target.cost, target.schema?.['type'] === 'object' ? 1 : 0), fieldSchema, fieldValue);
      }
      case '[]':
      case '[?]': {
        const [target, index] = node.args.map(e) as [Estimate, Estimate];
        return sized(add(add(target.cost, index.cost), 1), sub(target.schema, 'items') ?? sub(target.schema, 'additionalProperties'));
      }
      case 'list': {
        const items = node.args.map(e);
        return { cost: items.reduce((sum, i) => add(sum, i.cost), LIST_CREATE), size: items.length, schema: undefined };
      }
      case 'map': {
        const cost = node.args.reduce((sum, [k, v]) => add(add(sum, e(k).cost), e(v).cost), MAP_CREATE);
        return { cost, size: node.args.length, schema: undefined };
      }
      case '?:': {
        const [condition, ifTrue, ifFalse] = node.args.map(e) as [Estimate, Estimate, Estimate];
        return { cost: add(condition.cost, Math.max(ifTrue.cost, ifFalse.cost)), size: maxSize(ifTrue, ifFalse), schema: undefined };
      }
      case '&&':
      case '||': {
        const [left, right] = node.args.map(e) as [Estimate, Estimate];
        return { cost: add(left.cost, right.cost), size: 1, schema: undefined };
      }
      case '!_':
      case '-_':
        return { cost: add(e(node.args).cost, 1), size: 1, schema: undefined };
      case 'call':
        return this.call(node.args[0], undefined, node.args[1], locals);
      case 'rcall':
        return this.call(node.args[0], node.args[1], node.args[2], locals);
      default:
        return this.binary(node.op, node.args, locals);
    }
  }

  private binary(op: string, [l, r]: [ASTNode, ASTNode], locals: ReadonlyMap<string, Estimate>): Estimate {
    const left = this.estimate(l, locals);
    const right = this.estimate(r, locals);
    const args = add(left.cost, right.cost);
    switch (op) {
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=': {
        // Equality and ordering of strings and lists walk the shorter operand; of scalars cost 1.
        const shorter = Math.min(left.size ?? MAX_COST, right.size ?? MAX_COST);
        const isString = left.schema?.['type'] === 'string' || typeof literalOf(l) === 'string';
        if (op === '==' || op === '!=' || isString)
          return { cost: add(args, byFactor(shorter, STRING_TRAVERSAL)), size: 1, schema: undefined };
        return { cost: add(args, 1), size: 1, schema: undefined };
      }
      case 'in':
        return { cost: add(args, right.size ?? MAX_COST), size: 1, schema: undefined };
      case '+': {
        const size = left.size === undefined || right.size === undefined ? undefined : add(left.size, right.size);
        const isText = left.schema?.['type'] === 'string' || typeof literalOf(l) === 'string' || typeof literalOf(r) === 'string';
        return { cost: add(args, isText ? byFactor(size ?? MAX_COST, STRING_TRAVERSAL) : 1), size, schema: undefined };
      }
      default:
        return { cost: add(args, 1), size: 1, schema: undefined };
    }
  }

  private call(name: string, target: ASTNode | undefined, args: readonly ASTNode[], locals: ReadonlyMap<string, Estimate>): Estimate {
    if (target !== undefined && MACROS.has(name) && args.length >= 2 && args[0]!.op === 'id') {
      return this.comprehension(name, target, args, locals);
    }
    if (name === 'has' && target === undefined && args.length === 1) {
      const [operand] = args[0]!.op === '.' ? args[0].args : [args[0]!];
      return { cost: add(this.estimate(operand, locals).cost, 1), size: 1, schema: undefined };
    }
    if (name === 'dyn' && args.length === 1) {
      const inner = this.estimate(args[0]!, locals);
      return { ...inner, cost: add(inner.cost, 1) };
    }
    const receiver = target === undefined ? undefined : this.estimate(target, locals);
    const argEstimates = args.map((a) => this.estimate(a, locals));
    const argCost = argEstimates.reduce((sum, a) => add(sum, a.cost), receiver?.cost ?? 0);
    const receiverSize = receiver?.size ?? MAX_COST;
    const firstArgSize = argEstimates[0]?.size ?? MAX_COST;
    switch (name) {
      case 'matches': {
        const text = target === undefined ? firstArgSize : receiverSize;
        const pattern = target === undefined ? (argEstimates[1]?.size ?? MAX_COST) : firstArgSize;
        return scalar(add(argCost, times(byFactor(add(text, 1), STRING_TRAVERSAL), byFactor(pattern, REGEX_LENGTH))));
      }
      case 'contains':
        return scalar(add(argCost, times(byFactor(receiverSize, STRING_TRAVERSAL), byFactor(firstArgSize, STRING_TRAVERSAL))));
      case 'startsWith':
      case 'endsWith':
        return scalar(add(argCost, byFactor(firstArgSize, STRING_TRAVERSAL)));
      case 'size':
        return scalar(add(argCost, 1));
      case 'string':
        if (target === undefined && args.length === 1) {
          // Of bytes (a `format: byte` string), cel-go sizes the result by its argument; of anything
          // else it has no size estimate, so its size is unknown and a concatenation or traversal
          // of it costs the most (kube-apiserver refuses `'n=' + string(self.n)` as a messageExpression).
          const bytes = argEstimates[0]!.schema?.['format'] === 'byte' || literalOf(args[0]!) instanceof Uint8Array;
          if (bytes)
            return { cost: add(argCost, byFactor(firstArgSize, STRING_TRAVERSAL)), size: argEstimates[0]!.size, schema: undefined };
          return { cost: add(argCost, 1), size: undefined, schema: undefined };
        }
        return scalar(add(argCost, 1));
      default:
        if (receiver !== undefined && RECEIVER_TRAVERSAL.has(name)) {
          return { cost: add(argCost, byFactor(receiverSize, STRING_TRAVERSAL)), size: receiver.size, schema: undefined };
        }
        return scalar(add(argCost, 1));
    }
  }

  // cel-go's costComprehension over the expansion of each macro: range, accumulator init and
  // result once, loop condition and step once per element of the range.
  private comprehension(name: string, target: ASTNode, args: readonly ASTNode[], locals: ReadonlyMap<string, Estimate>): Estimate {
    const range = this.estimate(target, locals);
    const variable = args[0]!.args as string;
    const actual = range.value?.actual;
    if (actual !== undefined && (Array.isArray(actual) || isJsonObject(actual))) {
      const elements: readonly unknown[] = Array.isArray(actual) ? actual : Object.keys(actual);
      const elementSchema = Array.isArray(actual) ? sub(range.schema, 'items') : { type: 'string' };
      const inner = new Map(locals);
      let cost = add(range.cost, loopCost(name, [0, 0])[0]);
      for (const element of elements) {
        inner.set(variable, sized(1, elementSchema, { actual: element }));
        cost = add(
          cost,
          loopCost(
            name,
            args.slice(1).map((a) => this.estimate(a, inner).cost),
          )[1],
        );
        if (cost > this.limit) break;
      }
      return { cost, size: name === 'map' || name === 'filter' ? elements.length : 1, schema: undefined };
    }
    const element: Estimate = {
      cost: 1,
      size: undefined,
      schema: sub(range.schema, 'items') ?? (range.schema?.['type'] === 'object' ? { type: 'string' } : undefined),
    };
    const inner = new Map(locals);
    inner.set(variable, element.schema === undefined ? element : sized(1, element.schema));
    const body = args.slice(1).map((a) => this.estimate(a, inner).cost);
    const count = range.size ?? MAX_COST;
    const [once, perElement] = loopCost(name, body);
    const cost = add(add(range.cost, once), times(count, perElement));
    return { cost, size: name === 'map' || name === 'filter' ? range.size : 1, schema: undefined };
  }
}

// What every resource root (and embedded resource) lets rules read even when its schema omits
// them (SchemaDeclType's WithTypeAndObjectMeta): unbounded strings.
const IMPLICIT_FIELDS: Readonly<Record<string, Schema | undefined>> = {
  apiVersion: { type: 'string' },
  kind: { type: 'string' },
  metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
  // A schema's own `metadata: {type: object}` is completed the same way.
  name: { type: 'string' },
  generateName: { type: 'string' },
};

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/**
 * What a macro's expansion costs besides its range: once (accumulator init and result) and per
 * element (loop condition and step around the body's `bodies` costs).
 */
function loopCost(name: string, bodies: readonly number[]): [once: number, perElement: number] {
  switch (name) {
    case 'all':
    case 'exists':
      return [1, add(bodies[0]!, 3)]; // @not_strictly_false(__result__) is 2, `__result__ && p` adds 1
    case 'exists_one':
      return [2, add(bodies[0]!, 2)];
    case 'map':
      // With a filter: `p ? __result__ + [f] : __result__`, else `__result__ + [f]`.
      return [LIST_CREATE + 1, bodies.length === 2 ? add(add(bodies[0]!, bodies[1]!), 12) : add(bodies[0]!, 12)];
    default: // filter
      return [LIST_CREATE + 1, add(bodies[0]!, 13)];
  }
}

function sized(cost: number, schema: Schema | undefined, value?: { readonly actual: unknown }): Estimate {
  if (value !== undefined && value.actual !== undefined) return { cost, size: actualSize(value.actual), schema, value };
  return { cost, size: schema === undefined ? undefined : maxElements(schema), schema };
}

// cel-go's sizes at run time: characters of a string, items of a list, entries of a map, 1 else.
function actualSize(value: unknown): number {
  if (typeof value === 'string') return [...value].length;
  if (Array.isArray(value)) return value.length;
  if (isJsonObject(value)) return Object.keys(value).length;
  return 1;
}

function scalar(cost: number): Estimate {
  return { cost, size: 1, schema: undefined };
}

function maxSize(a: Estimate, b: Estimate): number | undefined {
  return a.size === undefined || b.size === undefined ? undefined : Math.max(a.size, b.size);
}

function literalOf(node: ASTNode): unknown {
  return node.op === 'value' ? node.args : undefined;
}

function literalSize(value: unknown): number {
  if (typeof value === 'string') return [...value].length;
  if (value instanceof Uint8Array) return value.length;
  return 1;
}
