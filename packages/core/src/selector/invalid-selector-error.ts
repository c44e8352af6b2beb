/**
 * A label or field selector string (or metav1.LabelSelector object) that does not parse or
 * validate. The message follows kube-apiserver's wording so that an embedded server can return it
 * verbatim in a 400 Status.
 *
 * @example
 * ```ts
 * import { InvalidSelectorError, LabelSelector } from '@kindex/core';
 * declare const userInput: string;
 *
 * try {
 *   LabelSelector.parse(userInput);
 * } catch (error) {
 *   if (error instanceof InvalidSelectorError) console.error(`bad selector ${JSON.stringify(error.selector)}: ${error.message}`);
 *   else throw error;
 * }
 * ```
 */
export class InvalidSelectorError extends Error {
  override readonly name = 'InvalidSelectorError';
  readonly code = 'KINDEX_INVALID_SELECTOR';
  /** The selector text as given (for a metav1.LabelSelector object: its JSON). */
  readonly selector: string;
  /** The offending part, for example `matchExpressions[1].values`, when one can be named. */
  readonly field: string | undefined;

  constructor(selector: string, message: string, options?: { field?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.selector = selector;
    this.field = options?.field;
  }
}
