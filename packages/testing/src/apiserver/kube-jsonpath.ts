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

/** A float literal of the path (`2.0`): Go compares it only with floats, unlike the JSON integer 2. */
class FloatLiteral {
  constructor(readonly value: number) {}
}

interface ListNode {
  readonly kind: 'list';
  readonly nodes: PathNode[];
}
interface ArrayParam {
  value: number;
  known: boolean;
  derived: boolean;
}
type PathNode =
  | ListNode
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'identifier'; readonly name: string }
  | { readonly kind: 'array'; readonly params: readonly [ArrayParam, ArrayParam, ArrayParam] }
  | { readonly kind: 'filter'; readonly left: ListNode; readonly right: ListNode; readonly operator: string }
  | { readonly kind: 'int'; readonly value: number }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'wildcard' }
  | { readonly kind: 'recursive' }
  | { readonly kind: 'union'; readonly nodes: ListNode[] };

/** A template that does not parse; the message is client-go's. */
export class JsonPathSyntaxError extends Error {
  override readonly name = 'JsonPathSyntaxError';
}

const list = (): ListNode => ({ kind: 'list', nodes: [] });
const isTerminator = (r: string | undefined): boolean =>
  r === undefined || r === ' ' || r === '\t' || r === '\r' || r === '\n' || '.,[]$@{}'.includes(r);
const isAlphaNumeric = (r: string): boolean => r === '_' || /^[\p{L}\p{Nd}]$/u.test(r);
const DICT_KEY = /^'([^']*)'$/;
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const FILTER = /^([^!<>=]+)([!<>=]+)(.+?)$/;

/** client-go's Parser: one pass over the template, building the node tree. */
class Parser {
  readonly root = list();
  #input = '';
  #pos = 0;
  #start = 0;

  parse(text: string): ListNode {
    this.#input = text;
    this.#parseText(this.root);
    return this.root;
  }

  #next(): string | undefined {
    if (this.#pos >= this.#input.length) return undefined;
    const r = String.fromCodePoint(this.#input.codePointAt(this.#pos)!);
    this.#pos += r.length;
    return r;
  }
  #backup(r: string | undefined): void {
    if (r !== undefined) this.#pos -= r.length;
  }
  #peek(): string | undefined {
    const r = this.#next();
    this.#backup(r);
    return r;
  }
  #consume(): string {
    const value = this.#input.slice(this.#start, this.#pos);
    this.#start = this.#pos;
    return value;
  }
  #rest(): string {
    return this.#input.slice(this.#pos);
  }

  #parseText(cur: ListNode): void {
    for (;;) {
      if (this.#rest().startsWith('{')) {
        if (this.#pos > this.#start) cur.nodes.push({ kind: 'text', text: this.#consume() });
        this.#pos += 1;
        this.#consume();
        const action = list();
        cur.nodes.push(action);
        return this.#parseInsideAction(action);
      }
      if (this.#next() === undefined) break;
    }
    if (this.#pos > this.#start) cur.nodes.push({ kind: 'text', text: this.#consume() });
  }

  #parseInsideAction(cur: ListNode): void {
    // A loop where client-go recurses once per token: a long path must not grow the stack.
    for (;;) {
      const rest = this.#rest();
      if (rest.startsWith('}')) {
        this.#pos += 1;
        this.#consume();
        return this.#parseText(this.root);
      }
      if (rest.startsWith('[?(')) {
        this.#parseFilter(cur);
        continue;
      }
      if (rest.startsWith('..')) {
        const last = cur.nodes.at(-1);
        if (last?.kind === 'recursive') throw new JsonPathSyntaxError('invalid multiple recursive descent');
        this.#pos += 2;
        this.#consume();
        cur.nodes.push({ kind: 'recursive' });
        const r = this.#peek();
        if (r !== undefined && isAlphaNumeric(r)) this.#parseField(cur);
        continue;
      }
      const r = this.#next();
      if (r === undefined || r === '\r' || r === '\n') throw new JsonPathSyntaxError('unclosed action');
      if (r === ' ' || r === '@' || r === '$') this.#consume();
      else if (r === '[') this.#parseArray(cur);
      else if (r === '"' || r === "'") this.#parseQuote(cur, r);
      else if (r === '.') this.#parseField(cur);
      else if (r === '+' || r === '-' || /^\d$/.test(r)) {
        this.#backup(r);
        this.#parseNumber(cur);
      } else if (isAlphaNumeric(r)) {
        this.#backup(r);
        this.#parseIdentifier(cur);
      } else {
        // Go's %#U: U+0023 '#'.
        const code = r.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
        throw new JsonPathSyntaxError(`unrecognized character in action: U+${code} '${r}'`);
      }
    }
  }

  #parseIdentifier(cur: ListNode): void {
    for (;;) {
      const r = this.#next();
      if (isTerminator(r)) {
        this.#backup(r);
        break;
      }
    }
    const value = this.#consume();
    cur.nodes.push(value === 'true' || value === 'false' ? { kind: 'bool', value: value === 'true' } : { kind: 'identifier', name: value });
  }

  #parseNumber(cur: ListNode): void {
    const sign = this.#peek();
    if (sign === '+' || sign === '-') this.#next();
    for (;;) {
      const r = this.#next();
      if (r !== '.' && (r === undefined || !/^\d$/.test(r))) {
        this.#backup(r);
        break;
      }
    }
    const value = this.#consume();
    if (/^[+-]?\d+$/.test(value)) cur.nodes.push({ kind: 'int', value: Number(value) });
    else if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(value)) cur.nodes.push({ kind: 'float', value: Number(value) });
    else throw new JsonPathSyntaxError(`cannot parse number ${value}`);
  }

  #parseArray(cur: ListNode): void {
    for (;;) {
      const r = this.#next();
      if (r === undefined || r === '\n') throw new JsonPathSyntaxError('unterminated array');
      if (r === ']') break;
    }
    let text = this.#consume().slice(1, -1);
    if (text === '*') text = ':';
    const parts = text.split(',');
    if (parts.length > 1) {
      cur.nodes.push({ kind: 'union', nodes: parts.map((part) => parseAction(`[${part.trim()}]`)) });
      return;
    }
    const key = DICT_KEY.exec(text);
    if (key !== null) {
      cur.nodes.push(...parseAction(`.${key[1]!}`).nodes);
      return;
    }
    const slice = SLICE.exec(text);
    if (slice === null) throw new JsonPathSyntaxError(`invalid array index ${text}`);
    const params: [ArrayParam, ArrayParam, ArrayParam] = [
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
    ];
    for (let i = 0; i < 3; i++) {
      let part = slice[i + 1] ?? '';
      if (part !== '') {
        if (i > 0) part = part.slice(1);
        if (i > 0 && part === '') params[i]!.known = false;
        else {
          if (!/^[+-]?\d+$/.test(part)) throw new JsonPathSyntaxError(`array index ${part} is not a number`);
          params[i] = { value: Number(part), known: true, derived: false };
        }
      } else if (i === 1) params[1] = { value: params[0].value + 1, known: true, derived: true };
    }
    cur.nodes.push({ kind: 'array', params });
  }

  #parseFilter(cur: ListNode): void {
    this.#pos += 3;
    this.#consume();
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const r = this.#next();
      if (r === undefined || r === '\n') throw new JsonPathSyntaxError('unterminated filter');
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (this.#input[this.#pos - 2] !== '\\' && r === pair) end = true;
      } else if (r === ')' && begin === end) break;
    }
    if (this.#next() !== ']') throw new JsonPathSyntaxError('unclosed array expect ]');
    const text = this.#consume().slice(0, -2);
    const comparison = FILTER.exec(text);
    if (comparison === null) cur.nodes.push({ kind: 'filter', left: parseAction(text), right: list(), operator: 'exists' });
    else {
      cur.nodes.push({ kind: 'filter', left: parseAction(comparison[1]!), right: parseAction(comparison[3]!), operator: comparison[2]! });
    }
  }

  #parseQuote(cur: ListNode, quote: string): void {
    for (;;) {
      const r = this.#next();
      if (r === undefined || r === '\n') throw new JsonPathSyntaxError('unterminated quoted string');
      if (r === quote && this.#input[this.#pos - 2] !== '\\') break;
    }
    cur.nodes.push({ kind: 'text', text: unquote(this.#consume()) });
  }

  #parseField(cur: ListNode): void {
    this.#consume();
    for (;;) {
      const r = this.#next();
      if (r === '\\') this.#next();
      else if (isTerminator(r)) {
        this.#backup(r);
        break;
      }
    }
    const value = this.#consume();
    cur.nodes.push(value === '*' ? { kind: 'wildcard' } : { kind: 'field', name: value.replaceAll('\\', '') });
  }
}

/** client-go's parseAction: the nodes of `text` as the inside of one `{...}`. */
function parseAction(text: string): ListNode {
  const root = new Parser().parse(`{${text}}`);
  return root.nodes[0] as ListNode;
}

/** Go's strconv.Unquote, extended to single quotes (client-go's UnquoteExtend). */
function unquote(quoted: string): string {
  const quote = quoted[0] ?? '';
  const body = quoted.slice(1, -1);
  if (quoted.length < 2 || quote !== quoted.at(-1)) throw new JsonPathSyntaxError(`unquote string ${quoted} error invalid syntax`);
  if (!body.includes('\\') && !body.includes(quote)) return body;
  const escapes: Record<string, string> = {
    a: '\x07',
    b: '\b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
    v: '\v',
    '\\': '\\',
    "'": "'",
    '"': '"',
  };
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === quote) throw new JsonPathSyntaxError(`unquote string ${quoted} error invalid syntax`);
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    const hex = (n: number): string => {
      const digits = body.slice(i + 1, i + 1 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(digits)) throw new JsonPathSyntaxError(`unquote string ${quoted} error invalid syntax`);
      i += n;
      return String.fromCodePoint(parseInt(digits, 16));
    };
    if (e === 'x') out += hex(2);
    else if (e === 'u') out += hex(4);
    else if (e === 'U') out += hex(8);
    else if (e !== undefined && /[0-7]/.test(e)) {
      const digits = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(digits)) throw new JsonPathSyntaxError(`unquote string ${quoted} error invalid syntax`);
      out += String.fromCharCode(parseInt(digits, 8));
      i += 2;
    } else if (e !== undefined && e in escapes && (e !== "'" || quote === "'") && (e !== '"' || quote === '"')) out += escapes[e];
    else throw new JsonPathSyntaxError(`unquote string ${quoted} error invalid syntax`);
  }
  return out;
}

/** An evaluation error: client-go returns it, and the printer column shows nothing. */
class JsonPathEvalError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

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
  if (isObject(value)) return Object.values(value);
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
        if (isObject(value) && Object.hasOwn(value, node.name)) results.push(value[node.name]);
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
  if (isObject(value)) {
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
