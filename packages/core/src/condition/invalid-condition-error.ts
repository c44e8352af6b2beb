/**
 * A condition the API server would refuse (apimachinery's metav1.Condition validation), caught
 * before the status write so the error names the condition and field rather than a 422 later.
 *
 * @example
 * ```ts
 * import { InvalidConditionError, setStatusCondition } from '@kindex/core';
 *
 * try {
 *   setStatusCondition([], { type: 'Ready', status: 'False', reason: 'deployment is not available' });
 * } catch (e) {
 *   if (e instanceof InvalidConditionError) console.log(e.field); // "reason"
 * }
 * ```
 */
export class InvalidConditionError extends Error {
  override readonly name = 'InvalidConditionError';
  readonly code = 'KINDEX_INVALID_CONDITION';
  /** The `type` of the condition at fault. */
  readonly conditionType: string;
  /** The field at fault in the condition (`reason`, `status`, ...). */
  readonly field: string;

  constructor(conditionType: string, field: string, problem: string, fix: string) {
    super(`status condition ${JSON.stringify(conditionType)}: ${field} ${problem}: ${fix}`);
    this.conditionType = conditionType;
    this.field = field;
  }
}
