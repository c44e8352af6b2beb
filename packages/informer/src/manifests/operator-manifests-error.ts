/**
 * The operator cannot be deployed as defined: the message names the operator, the option and the
 * fix, on one line (`kindex manifests` prints it as is).
 *
 * @example
 * ```ts
 * import { OperatorManifestsError } from '@kindex/informer';
 * declare const error: unknown; // caught around the writing of an operator's manifests
 *
 * if (error instanceof OperatorManifestsError) console.error(`${error.field}: ${error.message}`);
 * ```
 */
export class OperatorManifestsError extends Error {
  override readonly name = 'OperatorManifestsError';
  readonly code = 'KINDEX_OPERATOR_MANIFESTS';
  constructor(
    /** Which operator, e.g. `operator widget-operator`. */
    readonly subject: string,
    /** The option at fault, e.g. `server` or `webhooks.certDir`. */
    readonly field: string,
    fix: string,
  ) {
    super(`${subject}: ${field}: ${fix}`);
  }
}
