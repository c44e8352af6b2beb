import { InvalidOptionError } from './invalid-option-error.js';

/**
 * One key of an options object that its receiver does not know.
 *
 * @example
 * ```ts
 * import type { UnknownOption } from '@kindex/core';
 *
 * const typo: UnknownOption = {
 *   path: 'Operator options.server.hots',
 *   key: 'hots',
 *   accepted: ['debug', 'host', 'port', 'unhealthyAfterMs'],
 *   suggestion: 'host',
 * };
 * ```
 */
export interface UnknownOption {
  /** Where the key sits, from the object the caller handed in, for example `Operator options.server.hots`. */
  readonly path: string;
  /** The unknown key itself, for example `hots`. */
  readonly key: string;
  /** The keys accepted at that level, sorted. */
  readonly accepted: readonly string[];
  /** The accepted key closest to `key` (edit distance), or undefined when none is close. */
  readonly suggestion: string | undefined;
}

/**
 * An options object holds keys its receiver does not know: a typo (`leaderElecton`), an option
 * of another object, or a key of an older version. An ignored option is a silent
 * misconfiguration (an operator running without the leader election it was given), so every
 * options object of kindex rejects them, naming all of them at once. A kind of
 * {@link InvalidOptionError} (code `KINDEX_INVALID_OPTION`): `key` and `fix` are those of the first
 * unknown key.
 *
 * @example
 * ```ts
 * import { GenericRetry, UnknownOptionError, type GenericRetryOptions } from '@kindex/core';
 *
 * // Options read from a file: a typo the type checker cannot see.
 * const options = JSON.parse('{ "maxAttempts": 3, "maxIntervalMS": 60000 }') as GenericRetryOptions;
 * try {
 *   new GenericRetry(options);
 * } catch (error) {
 *   if (error instanceof UnknownOptionError) {
 *     for (const option of error.unknown) console.error(`${option.path}: did you mean ${option.suggestion}?`);
 *   }
 * }
 * ```
 */
export class UnknownOptionError extends InvalidOptionError {
  override readonly name: string = 'UnknownOptionError';

  constructor(
    /** What was being configured, as the caller would name it, for example `Operator options`. */
    readonly path: string,
    /** Every unknown key found, nested ones included, in the order of the object. */
    readonly unknown: readonly UnknownOption[],
  ) {
    super(UnknownOptionError.#first(path, unknown[0]), UnknownOptionError.#describe(unknown));
  }

  /** The full paths of the unknown keys, for example `['Operator options.server.hots']`. */
  get paths(): readonly string[] {
    return this.unknown.map((option) => option.path);
  }

  static #first(path: string, first: UnknownOption | undefined) {
    return {
      options: path,
      key: first === undefined ? '' : first.path.slice(path.length + 1),
      value: undefined,
      problem: 'not an option of this object',
      fix: first?.suggestion === undefined ? 'rename or remove it' : `rename it to ${first.suggestion}, or remove it`,
    };
  }

  static #describe(unknown: readonly UnknownOption[]): string {
    const named = unknown
      .map((option) => `${option.path}${option.suggestion === undefined ? '' : ` (did you mean "${option.suggestion}"?)`}`)
      .join(', ');
    // One "accepts" line per level that had an unknown key, so the fix is in the message.
    const levels = new Map<string, readonly string[]>();
    for (const option of unknown) levels.set(option.path.slice(0, -option.key.length - 1), option.accepted);
    const accepts = [...levels].map(([level, accepted]) => `${level} accepts: ${accepted.join(', ')}`).join('; ');
    return unknown.length === 1
      ? `Unknown option ${named}. ${accepts}. Rename or remove it.`
      : `${unknown.length} unknown options: ${named}. ${accepts}. Rename or remove them.`;
  }
}
