// Kubernetes JSONPath (k8s.io/client-go/util/jsonpath), as kube-apiserver evaluates the jsonPath
// of a CRD's additionalPrinterColumns: `{` + jsonPath + `}` parsed by client-go's parser, with
// missing keys allowed. It is not the JSONPath of RFC 9535 or of jsonpath-plus: filters hold one
// comparison (`==`, `!=`, `<`, `>`, `<=`, `>=`, no `&&` or `||`) or an existence test, compare
// Go-style (an integer with a float, or a string with a number, is an error, not false), and an
// error anywhere (an index out of range, `[0]` of an object, an unknown identifier) voids the
// whole result. Ported from client-go v0.36.3 (parser.go, jsonpath.go and the forked
// text/template comparisons), which is the judge wherever this file and it differ.
// Not ported: `range`/`end` (a printer column's `{...}` cannot hold them usefully), so they
// evaluate as unknown identifiers; `.*` and `..` visit object keys in insertion order where Go
// visits a map in random order.

import { isJsonObject } from '@kindex/core/internal';
import { FloatLiteral, Parser, type PathNode } from './kube-jsonpath-parser.js';

/** An evaluation error: client-go returns it, and the printer column shows nothing. */
class JsonPathEvalError extends Error {}

/** Go's basic kind of a value for comparisons (text/template's basicKind); undefined for maps, slices and nil. */
function basicKind(v: unknown): 'bool' | 'int' | 'float' | 'string' | undefined {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (v instanceof FloatLiteral) return 'float';
  // JSON numbers decode as int64 when whole (apimachinery's unstructured JSON), else float64.
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  return undefined;
}
const numberOf = (v: unknown): unknown => (v instanceof FloatLiteral ? v.value : v);

function compare(operator: string, left: unknown, right: unknown): boolean {
  const k1 = basicKind(left);
  const k2 = basicKind(right);
  if (k1 === undefined || k2 === undefined) throw new JsonPathEvalError('invalid type for comparison');
  const equal = (): boolean => {
    if (k1 !== k2) throw new JsonPathEvalError('incompatible types for comparison');
    return numberOf(left) === numberOf(right);
  };
  const less = (): boolean => {
    if (k1 !== k2) throw new JsonPathEvalError('incompatible types for comparison');
    if (k1 === 'bool') throw new JsonPathEvalError('invalid type for comparison');
    return (numberOf(left) as number | string) < (numberOf(right) as number | string);
  };
  switch (operator) {
    case '==':
      return equal();
    case '!=':
      return !equal();
    case '<':
      return less();
    case '<=':
      return less() || equal();
    case '>':
      return !(less() || equal());
    case '>=':
      return !less();
    default:
      throw new JsonPathEvalError(`unrecognized filter operator ${operator}`);
  }
}

function children(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isJsonObject(value)) return Object.values(value);
  if (typeof value === 'string') return [...Buffer.from(value, 'utf8')];
  return [];
}

function walk(input: unknown[], node: PathNode): unknown[] {
  switch (node.kind) {
    case 'list': {
      let current = input;
      for (const n of node.nodes) current = walk(current, n);
      return current;
    }
    case 'text':
      return [node.text];
    case 'int':
      return input.map(() => node.value);
    case 'float':
      return input.map(() => new FloatLiteral(node.value));
    case 'bool':
      return input.map(() => node.value);
    case 'field': {
      const results: unknown[] = [];
      for (const value of input) {
        // A present key holds a value even when it is null; an absent one yields nothing.
        if (isJsonObject(value) && Object.hasOwn(value, node.name)) results.push(value[node.name]);
      }
      return results;
    }
    case 'array': {
      const results: unknown[] = [];
      for (const value of input) {
        if (value === null || value === undefined) continue;
        if (!Array.isArray(value)) throw new JsonPathEvalError(`${typeof value} is not array or slice`);
        const [p0, p1, p2] = node.params.map((p) => ({ ...p }));
        if (!p0!.known) p0!.value = 0;
        if (p0!.value < 0) p0!.value += value.length;
        if (!p1!.known) p1!.value = value.length;
        if (p1!.value < 0 || (p1!.value === 0 && p1!.derived)) p1!.value += value.length;
        if (p1!.value === p0!.value) return results;
        if (p0!.value >= value.length || p0!.value < 0) throw new JsonPathEvalError(`array index out of bounds: index ${p0!.value}`);
        if (p1!.value > value.length || p1!.value < 0) throw new JsonPathEvalError(`array index out of bounds: index ${p1!.value - 1}`);
        if (p0!.value > p1!.value) throw new JsonPathEvalError(`starting index ${p0!.value} is greater than ending index ${p1!.value}`);
        const slice = value.slice(p0!.value, p1!.value);
        let step = 1;
        if (p2!.known) {
          if (p2!.value <= 0) throw new JsonPathEvalError('step must be > 0');
          step = p2!.value;
        }
        for (let i = 0; i < slice.length; i += step) results.push(slice[i]);
      }
      return results;
    }
    case 'filter': {
      const results: unknown[] = [];
      for (const value of input) {
        if (!Array.isArray(value)) throw new JsonPathEvalError('not array or slice and cannot be filtered');
        for (const element of value) {
          const lefts = walk([element], node.left);
          if (node.operator === 'exists') {
            if (lefts.length > 0) results.push(element);
            continue;
          }
          if (lefts.length === 0) continue;
          if (lefts.length > 1) throw new JsonPathEvalError('can only compare one element at a time');
          const rights = walk([element], node.right);
          if (rights.length === 0) continue;
          if (rights.length > 1) throw new JsonPathEvalError('can only compare one element at a time');
          if (compare(node.operator, lefts[0], rights[0])) results.push(element);
        }
      }
      return results;
    }
    case 'wildcard':
      return input.flatMap((value) => (value === null || value === undefined ? [] : children(value)));
    case 'recursive': {
      const results: unknown[] = [];
      const visit = (values: unknown[]): void => {
        for (const value of values) {
          const inner = value === null || value === undefined ? [] : children(value);
          if (inner.length === 0) continue;
          results.push(value);
          visit(inner);
        }
      };
      visit(input);
      return results;
    }
    case 'union':
      return node.nodes.flatMap((n) => walk(input, n));
    case 'identifier':
      throw new JsonPathEvalError(`unrecognized identifier ${node.name}`);
  }
}

/** A parsed Kubernetes JSONPath template. */
export interface KubeJsonPath {
  /**
   * client-go's FindResults with missing keys allowed: one result list per top-level node of the
   * template; undefined where client-go returns an error.
   */
  findResults(data: unknown): unknown[][] | undefined;
}

/**
 * Parses a template such as `{.status.conditions[?(@.type=="Ready")].status}`.
 * @throws {JsonPathSyntaxError} with client-go's message when it does not parse.
 */
export function parseKubeJsonPath(template: string): KubeJsonPath {
  const root = new Parser().parse(template);
  return {
    findResults(data) {
      try {
        return root.nodes.map((node) => walk([data], node).map((v) => (v instanceof FloatLiteral ? v.value : v)));
      } catch (error) {
        if (error instanceof JsonPathEvalError) return undefined;
        throw error;
      }
    },
  };
}

/** Go's json.Marshal of a decoded JSON value: object keys sorted, `<`, `>` and `&` escaped. */
function goJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${goJson(k)}:${goJson(value[k])}`).join(',')}}`;
  }
  // Go's encoder writes float64 as JavaScript does (exponents from 1e21 and below 1e-6).
  return JSON.stringify(value ?? null).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A number as Go prints it: a whole one as int64 (`fmt` %v), a fractional one as float64 in %v,
 * which is strconv's shortest 'g' with exponents from 1e+06 and below 1e-04 (`1.5e+06`).
 */
function goNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  const [mantissa, exponent] = n.toExponential().split('e') as [string, string];
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) {
    return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(n);
}

/**
 * A value as client-go's PrintResults writes one result: objects and arrays as Go's JSON, a null
 * as `<no value>`, strings as they are, numbers and booleans as Go prints them.
 */
export function printJsonPathValue(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  if (typeof value === 'object') return goJson(value);
  if (typeof value === 'number') return goNumber(value);
  return String(value);
}
