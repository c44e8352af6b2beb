// Label selectors: the string grammar of k8s.io/apimachinery/pkg/labels and the metav1.LabelSelector
// object, with matching and a canonical string form. Servers filter lists and watches with them;
// caches, predicates and filters match in memory with the same code, so both agree exactly.

import { InvalidSelectorError } from './invalid-selector-error.js';
import { labelValueErrors, qualifiedNameErrors } from './label-syntax.js';

/**
 * An operator of one label requirement. `Gt`/`Lt` compare integers, as the Kubernetes parser allows.
 *
 * @example
 * ```ts
 * import { LabelSelector, type LabelSelectorOperator } from '@kindex/core';
 *
 * const operators: LabelSelectorOperator[] = LabelSelector.parse('tier in (web,api),!canary').requirements.map((r) => r.operator);
 * ```
 */
export type LabelSelectorOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

/**
 * One requirement of a label selector: all of them must hold (logical AND).
 *
 * @example
 * ```ts
 * import { LabelSelector, type LabelRequirement } from '@kindex/core';
 *
 * const requirements: readonly LabelRequirement[] = LabelSelector.parse('environment=prod,tier in (web,api)').requirements;
 * for (const r of requirements) console.log(r.key, r.operator, r.values.join('|'));
 * ```
 */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  /** Sorted, without duplicates; empty for `exists` and `!`. */
  readonly values: readonly string[];
}

/**
 * The metav1.LabelSelector object found in Deployments, Services, webhooks and operators.
 *
 * @example
 * ```ts
 * import { LabelSelector, type LabelSelectorObject } from '@kindex/core';
 *
 * // The `spec.selector` of a Deployment-like custom resource.
 * const selector: LabelSelectorObject = {
 *   matchLabels: { app: 'web' },
 *   matchExpressions: [{ key: 'tier', operator: 'In', values: ['frontend', 'backend'] }],
 * };
 * const matches = LabelSelector.fromSelector(selector).matches({ app: 'web', tier: 'frontend' });
 * ```
 */
export interface LabelSelectorObject {
  matchLabels?: Readonly<Record<string, string>>;
  matchExpressions?: readonly {
    key: string;
    operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    values?: readonly string[];
  }[];
}

/**
 * A parsed, validated label selector.
 *
 * Requirements are sorted by key (as the Kubernetes parser sorts them), so {@link toString} is
 * canonical: equal selectors print equally and the text parses back to the same selector.
 *
 * @example
 * ```ts
 * import { LabelSelector } from '@kindex/core';
 * const s = LabelSelector.parse('app=web, tier in (a,b), !canary');
 * s.matches({ app: 'web', tier: 'a' }); // true
 * ```
 */
export class LabelSelector {
  /** The requirements, sorted by key; empty means "everything". */
  readonly requirements: readonly LabelRequirement[];

  private constructor(requirements: LabelRequirement[]) {
    this.requirements = Object.freeze(
      requirements
        .map((r) => Object.freeze({ ...r, values: Object.freeze([...r.values]) }))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    );
    Object.freeze(this);
  }

  /** The selector that matches every object (the empty string). */
  static everything(): LabelSelector {
    return EVERYTHING;
  }

  /**
   * Parses the Kubernetes label selector grammar: `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
   * `k notin (a,b)`, `k` (exists), `!k` (does not exist), `k>1`, `k<1`, joined by commas.
   * @throws {InvalidSelectorError} with a message close to kube-apiserver's.
   */
  static parse(selector: string): LabelSelector {
    return new LabelSelector(new Parser(selector).parse());
  }

  /**
   * Converts a metav1.LabelSelector. Note the Kubernetes convention: an absent selector object
   * selects nothing, but an empty one (`{}`) selects everything; this method receives the object,
   * so `{}` gives {@link everything}.
   * @throws {InvalidSelectorError} naming the field, as `matchExpressions[0].values`.
   */
  static fromSelector(obj: LabelSelectorObject): LabelSelector {
    const text = JSON.stringify(obj);
    const reqs: LabelRequirement[] = [];
    for (const [key, value] of Object.entries(obj.matchLabels ?? {})) {
      reqs.push(makeRequirement(text, key, '=', [value], `matchLabels[${key}]`));
    }
    (obj.matchExpressions ?? []).forEach((expr, i) => {
      const field = `matchExpressions[${i}]`;
      const op = EXPRESSION_OPERATORS[expr.operator];
      if (op === undefined) {
        throw new InvalidSelectorError(
          text,
          `${field}.operator: Invalid value: ${JSON.stringify(expr.operator)}: not a valid selector operator`,
          { field: `${field}.operator` },
        );
      }
      reqs.push(makeRequirement(text, expr.key, op, expr.values ?? [], field));
    });
    return new LabelSelector(reqs);
  }

  /** Whether the selector has no requirements (it matches everything). */
  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  /** Whether a label set satisfies every requirement; absent labels are an empty set. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    for (const r of this.requirements) {
      if (!requirementMatches(r, labels)) return false;
    }
    return true;
  }

  /** The canonical string form; `LabelSelector.parse(s.toString())` equals `s`. */
  toString(): string {
    return this.requirements.map(requirementToString).join(',');
  }
}

const EVERYTHING = new (LabelSelector as unknown as new (r: LabelRequirement[]) => LabelSelector)([]);

const EXPRESSION_OPERATORS: Record<string, LabelSelectorOperator | undefined> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

function hasOwn(labels: Readonly<Record<string, string>>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(labels, key);
}

function requirementMatches(r: LabelRequirement, labels: Readonly<Record<string, string>> | undefined): boolean {
  const has = labels !== undefined && hasOwn(labels, r.key);
  switch (r.operator) {
    case '=':
    case '==':
    case 'in':
      return has && r.values.includes(labels[r.key]!);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(labels[r.key]!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has) return false;
      const v = labels[r.key]!;
      if (!/^-?\d+$/.test(v)) return false;
      const actual = BigInt(v);
      const bound = BigInt(r.values[0]!);
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

function requirementToString(r: LabelRequirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case '=':
    case '==':
    case '!=':
      return `${r.key}${r.operator}${r.values[0]}`;
    case 'gt':
      return `${r.key}>${r.values[0]}`;
    case 'lt':
      return `${r.key}<${r.values[0]}`;
    case 'in':
    case 'notin':
      // A set holding only the empty value needs the `(,)` spelling: `()` is rejected as empty.
      return `${r.key} ${r.operator} (${r.values.length === 1 && r.values[0] === '' ? ',' : r.values.join(',')})`;
  }
}

// Mirrors labels.NewRequirement: the operator decides how many values are allowed, and the key
// and every value are validated.
function makeRequirement(
  text: string,
  key: string,
  operator: LabelSelectorOperator,
  values: readonly string[],
  field: string,
): LabelRequirement {
  const fail = (f: string, msg: string): never => {
    throw new InvalidSelectorError(text, msg, { field: f });
  };
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length > 0) {
    fail(`${field}.key`, `unable to parse requirement: key: Invalid value: ${JSON.stringify(key)}: ${keyErrs.join(', ')}`);
  }
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) {
        fail(
          `${field}.values`,
          "unable to parse requirement: values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
        );
      }
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) {
        fail(
          `${field}.values`,
          `unable to parse requirement: values: Invalid value: ${JSON.stringify(values)}: exact-match compatibility requires one single value`,
        );
      }
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) {
        fail(
          `${field}.values`,
          `unable to parse requirement: values: Invalid value: ${JSON.stringify(values)}: values set must be empty for exists and does not exist`,
        );
      }
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1 || !/^-?\d+$/.test(values[0]!)) {
        fail(
          `${field}.values`,
          `unable to parse requirement: values[0]: Invalid value: ${JSON.stringify(values[0] ?? '')}: for 'Gt', 'Lt' operators, the value must be an integer`,
        );
      }
      break;
  }
  values.forEach((v, i) => {
    if (typeof v !== 'string') {
      fail(`${field}.values[${i}]`, `unable to parse requirement: values[${i}]: Invalid value: ${JSON.stringify(v)}: must be a string`);
    }
    const errs = operator === 'gt' || operator === 'lt' ? [] : labelValueErrors(v);
    if (errs.length > 0) {
      fail(
        `${field}.values[${i}]`,
        `unable to parse requirement: values[${i}][${key}]: Invalid value: ${JSON.stringify(v)}: ${errs.join(', ')}`,
      );
    }
  });
  return { key, operator, values: [...new Set(values)].sort() };
}

type TokenKind = 'id' | 'in' | 'notin' | ',' | '=' | '==' | '!=' | '!' | '(' | ')' | '>' | '<' | 'eos';

interface Token {
  kind: TokenKind;
  text: string;
}

const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);

// The lexer of k8s labels/selector.go: identifiers run until whitespace or a special symbol, and
// the words `in`/`notin` are keywords wherever they appear.
function lex(s: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (SPECIAL.has(c)) {
      const two = s.slice(i, i + 2);
      if (two === '==' || two === '!=') {
        tokens.push({ kind: two, text: two });
        i += 2;
      } else {
        tokens.push({ kind: c as TokenKind, text: c });
        i++;
      }
    } else {
      let j = i;
      while (j < s.length && !SPECIAL.has(s[j]!) && !/\s/.test(s[j]!)) j++;
      const text = s.slice(i, j);
      tokens.push({ kind: text === 'in' ? 'in' : text === 'notin' ? 'notin' : 'id', text });
      i = j;
    }
  }
  tokens.push({ kind: 'eos', text: '' });
  return tokens;
}

class Parser {
  private readonly tokens: Token[];
  private pos = 0;

  constructor(private readonly text: string) {
    this.tokens = lex(text);
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    if (this.peek().kind === 'eos') return reqs;
    for (;;) {
      reqs.push(this.requirementWithContext());
      const t = this.next();
      if (t.kind === 'eos') return reqs;
      if (t.kind !== ',') this.fail(`found '${t.text}', expected: ',' or 'end of string'`);
      const after = this.peek();
      if (after.kind !== 'id' && after.kind !== '!') {
        this.fail(`found '${after.text}', expected: identifier after ','`);
      }
    }
  }

  // As in Kubernetes, syntax errors inside one requirement are reported as "unable to parse
  // requirement: ..." (validation errors already carry that prefix).
  private requirementWithContext(): LabelRequirement {
    try {
      return this.requirement();
    } catch (e) {
      if (e instanceof InvalidSelectorError && !e.message.startsWith('unable to parse requirement: ')) {
        throw new InvalidSelectorError(this.text, `unable to parse requirement: ${e.message}`);
      }
      throw e;
    }
  }

  private requirement(): LabelRequirement {
    let t = this.next();
    let negated = false;
    if (t.kind === '!') {
      negated = true;
      t = this.next();
    }
    if (t.kind !== 'id') this.fail(`found '${t.text}', expected: identifier`);
    const key = t.text;
    const after = this.peek();
    if (after.kind === 'eos' || after.kind === ',') {
      return makeRequirement(this.text, key, negated ? '!' : 'exists', [], 'selector');
    }
    if (negated) this.fail(`found '${after.text}', expected: ',' or 'end of string'`);
    const op = this.next();
    switch (op.kind) {
      case '=':
      case '==':
      case '!=': {
        const v = this.peek();
        let value = '';
        if (v.kind === 'id' || v.kind === 'in' || v.kind === 'notin') {
          value = this.next().text;
        } else if (v.kind !== 'eos' && v.kind !== ',') {
          this.fail(`found '${v.text}', expected: identifier`);
        }
        return makeRequirement(this.text, key, op.kind, [value], 'selector');
      }
      case '>':
      case '<': {
        const v = this.next();
        if (v.kind !== 'id') this.fail(`found '${v.text}', expected: identifier`);
        return makeRequirement(this.text, key, op.kind === '>' ? 'gt' : 'lt', [v.text], 'selector');
      }
      case 'in':
      case 'notin':
        return makeRequirement(this.text, key, op.kind, this.valueSet(), 'selector');
      default:
        return this.fail(`found '${op.text}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }

  // `( a, b )`; as in Kubernetes, an empty slot between commas is the empty value.
  private valueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') this.fail(`found '${open.text}', expected:'('`);
    const values: string[] = [];
    if (this.peek().kind === ')') {
      this.next();
      return values;
    }
    for (;;) {
      const t = this.next();
      if (t.kind === 'id' || t.kind === 'in' || t.kind === 'notin') {
        values.push(t.text);
        const sep = this.next();
        if (sep.kind === ')') return values;
        if (sep.kind !== ',') this.fail(`found '${sep.text}', expected: ',' or ')'`);
      } else if (t.kind === ',') {
        values.push('');
      } else if (t.kind === ')') {
        values.push('');
        return values;
      } else {
        this.fail(`found '${t.text}', expected: ',', ')' or identifier`);
      }
    }
  }

  private peek(): Token {
    return this.tokens[this.pos]!;
  }

  private next(): Token {
    const t = this.tokens[this.pos]!;
    if (t.kind !== 'eos') this.pos++;
    return t;
  }

  private fail(msg: string): never {
    throw new InvalidSelectorError(this.text, msg);
  }
}
