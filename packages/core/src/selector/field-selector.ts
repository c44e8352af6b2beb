// Field selectors: the grammar of k8s.io/apimachinery/pkg/fields. Only equality and inequality
// exist; values escape `\`, `,` and `=` with a backslash.

import { InvalidSelectorError } from './invalid-selector-error.js';

/**
 * One requirement of a field selector. `==` parses to `=`.
 *
 * @example
 * ```ts
 * import { FieldSelector, type FieldRequirement } from '@kindex/core/internal';
 *
 * const requirements: readonly FieldRequirement[] = FieldSelector.parse('status.phase!=Succeeded,spec.nodeName=node-1').requirements;
 * ```
 */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

/**
 * A parsed field selector, such as `metadata.name=web,status.phase!=Running`.
 *
 * Which fields a server accepts depends on the kind; this class only parses and matches. A field
 * the object does not have reads as the empty string, as in Kubernetes (`spec.nodeName=` matches
 * unscheduled pods).
 *
 * @example
 * ```ts
 * import { FieldSelector } from '@kindex/core/internal';
 *
 * const running = FieldSelector.parse('status.phase=Running');
 * const pod = { status: { phase: 'Running' } };
 * const matches = running.matches((field) => (field === 'status.phase' ? pod.status.phase : undefined));
 * // Quote a value that contains selector syntax before building a selector string.
 * const byName = FieldSelector.parse(`metadata.name=${FieldSelector.escapeValue('web,1')}`);
 * ```
 */
export class FieldSelector {
  /** The requirements, sorted by their string form as the Kubernetes parser sorts them. */
  readonly requirements: readonly FieldRequirement[];

  private constructor(requirements: FieldRequirement[]) {
    this.requirements = Object.freeze(
      requirements
        .map((r) => Object.freeze({ ...r }))
        .sort((a, b) => {
          const x = termToString(a);
          const y = termToString(b);
          return x < y ? -1 : x > y ? 1 : 0;
        }),
    );
    Object.freeze(this);
  }

  /** The selector that matches every object (the empty string). */
  static everything(): FieldSelector {
    return EVERYTHING;
  }

  /**
   * Parses `field=value`, `field==value` and `field!=value` terms joined by commas.
   * @throws {InvalidSelectorError} for a term without an operator or a bad escape sequence.
   */
  static parse(selector: string): FieldSelector {
    const reqs: FieldRequirement[] = [];
    for (const part of splitTerms(selector)) {
      if (part === '') continue;
      const term = splitTerm(part);
      if (term === undefined) {
        throw new InvalidSelectorError(selector, `invalid selector: '${selector}'; can't understand '${part}'`);
      }
      reqs.push({ field: term.field, operator: term.operator, value: unescapeValue(selector, term.value) });
    }
    return new FieldSelector(reqs);
  }

  /** Escapes a value for use in a field selector string. */
  static escapeValue(value: string): string {
    return value.replace(/[\\,=]/g, (c) => `\\${c}`);
  }

  /** Whether the selector has no requirements. */
  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  /** Whether an object's fields, read through `get`, satisfy every requirement. */
  matches(get: (field: string) => string | undefined): boolean {
    for (const r of this.requirements) {
      const actual = get(r.field) ?? '';
      if ((actual === r.value) !== (r.operator === '=')) return false;
    }
    return true;
  }

  /** The canonical string form; it parses back to an equal selector. */
  toString(): string {
    return this.requirements.map(termToString).join(',');
  }
}

const EVERYTHING = new (FieldSelector as unknown as new (r: FieldRequirement[]) => FieldSelector)([]);

function termToString(r: FieldRequirement): string {
  return `${r.field}${r.operator}${FieldSelector.escapeValue(r.value)}`;
}

// Splits on commas that are not escaped by a backslash.
function splitTerms(s: string): string[] {
  const terms: string[] = [];
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

// The first unescaped operator splits the term; `!=` and `==` are tried before `=`.
function splitTerm(term: string): { field: string; operator: '=' | '!='; value: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    const rest = term.slice(i, i + 2);
    if (rest === '!=') return { field: term.slice(0, i), operator: '!=', value: term.slice(i + 2) };
    if (rest === '==') return { field: term.slice(0, i), operator: '=', value: term.slice(i + 2) };
    if (term[i] === '=') return { field: term.slice(0, i), operator: '=', value: term.slice(i + 1) };
  }
  return undefined;
}

function unescapeValue(selector: string, s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\') {
      const n = s[i + 1];
      if (n !== '\\' && n !== ',' && n !== '=') {
        throw new InvalidSelectorError(selector, `invalid field selector: invalid escape sequence: \\${n ?? ''}`);
      }
      out += n;
      i++;
    } else if (c === ',' || c === '=') {
      throw new InvalidSelectorError(selector, `invalid field selector: unescaped character ${JSON.stringify(c)}`);
    } else {
      out += c;
    }
  }
  return out;
}
