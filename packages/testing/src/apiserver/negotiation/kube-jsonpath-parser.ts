// The parser of Kubernetes JSONPath templates: client-go's util/jsonpath parser.go (v0.36.3),
// ported token for token, messages included; kube-jsonpath.ts evaluates what it builds.

/** A float literal of the path (`2.0`): Go compares it only with floats, unlike the JSON integer 2. */
export class FloatLiteral {
  constructor(readonly value: number) {}
}

export interface ListNode {
  readonly kind: 'list';
  readonly nodes: PathNode[];
}
interface ArrayParam {
  value: number;
  known: boolean;
  derived: boolean;
}
export type PathNode =
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
export class Parser {
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
