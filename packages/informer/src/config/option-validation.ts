/**
 * Configuration checks that run where configuration is written (registering a controller,
 * building an event source, creating a cache), so a mistake fails at once with the object, the
 * option and the fix in the message, instead of as a 400 from the server on every retry or an
 * option silently ignored. Use these for every option bag a JavaScript caller can hand in.
 *
 * @module
 */
import { FieldSelector, InvalidSelectorError, LabelSelector } from '@kindex/core';

/**
 * An option key the receiving object does not know (a typo, or an option of another object).
 *
 * @example
 * ```ts
 * import { Kinds, UnknownOptionError, type Operator } from '@kindex/informer';
 * import type { Reconciler } from '@kindex/core';
 * declare const operator: Operator;
 * declare const reconciler: Reconciler;
 *
 * try {
 *   operator.register(reconciler, { kind: Kinds.ConfigMap, namespace: 'shop' } as never); // typo: namespaces
 * } catch (error) {
 *   if (error instanceof UnknownOptionError) console.error(`${error.owner}: ${error.option}? accepted: ${error.accepted.join(', ')}`);
 * }
 * ```
 */
export class UnknownOptionError extends Error {
  override readonly name = 'UnknownOptionError';

  constructor(
    /** What was being configured, for example `controller widgets.test.kindex.dev`. */
    readonly owner: string,
    /** The unknown key. */
    readonly option: string,
    /** The keys that are accepted. */
    readonly accepted: readonly string[],
  ) {
    const near = accepted.find((a) => a.toLowerCase() === option.toLowerCase());
    super(
      `${owner}: unknown option ${JSON.stringify(option)}${near !== undefined ? ` (did you mean ${JSON.stringify(near)}?)` : ''}; ` +
        `accepted options: ${accepted.join(', ')}`,
    );
  }
}

/**
 * Rejects keys of `options` outside `accepted`. TypeScript callers cannot pass them; JavaScript
 * callers (and `as never` casts) can, and an ignored option is a silent misconfiguration.
 * @throws {UnknownOptionError} for the first unknown key.
 */
export function rejectUnknownOptions(owner: string, options: object, accepted: Readonly<Record<string, true>>): void {
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(accepted, key)) throw new UnknownOptionError(owner, key, Object.keys(accepted).sort());
  }
}

/**
 * Parses a label selector client-side (the server would answer 400 on every list and watch).
 * @throws {InvalidSelectorError} naming the owner, the selector and the parser's reason.
 */
export function checkLabelSelector(owner: string, selector: string): void {
  try {
    LabelSelector.parse(selector);
  } catch (error) {
    if (!(error instanceof InvalidSelectorError)) throw error;
    throw new InvalidSelectorError(selector, `${owner}: labelSelector ${JSON.stringify(selector)} is invalid: ${error.message}`, {
      ...(error.field !== undefined ? { field: error.field } : {}),
      cause: error,
    });
  }
}

/**
 * Parses a field selector client-side.
 * @throws {InvalidSelectorError} naming the owner, the selector and the parser's reason.
 */
export function checkFieldSelector(owner: string, selector: string): FieldSelector {
  try {
    return FieldSelector.parse(selector);
  } catch (error) {
    if (!(error instanceof InvalidSelectorError)) throw error;
    throw new InvalidSelectorError(selector, `${owner}: fieldSelector ${JSON.stringify(selector)} is invalid: ${error.message}`, {
      ...(error.field !== undefined ? { field: error.field } : {}),
      cause: error,
    });
  }
}

/** The keys of the connection tuning (`reflector`) options of controllers and event sources. */
export const REFLECTOR_TUNING_KEYS = {
  pageSize: true,
  watchTimeoutSeconds: true,
  inactivityTimeoutMs: true,
  backoff: true,
} as const;
