// Status conditions (apimachinery `meta/v1.Condition` and `k8s.io/apimachinery/pkg/api/meta`'s
// SetStatusCondition, FindStatusCondition, RemoveStatusCondition, IsStatusConditionTrue).
//
// A condition reports one aspect of an object's state (`Ready`, `Available`, `Degraded`) with a
// status True, False or Unknown. The functions here keep apimachinery's rules: one condition per
// `type`; `lastTransitionTime` moves only when `status` changes, so it tells when the state last
// flipped rather than when the reconciler last looked; `observedGeneration` is the generation the
// reconciler acted on; `reason` is a CamelCase word for machines and `message` text for humans.
// They are pure functions over frozen arrays: each returns a new frozen array (or the same one when
// nothing changed, so `next !== previous` says whether a status write is needed), never changing
// its input, because kindex hands reconcilers frozen objects from its caches.
//
// Use `setStatusCondition` to add or update, `removeStatusCondition` to drop one type,
// `findStatusCondition` to read one, and `isStatusConditionTrue`/`isStatusConditionFalse`/
// `isStatusConditionPresentAndEqual` to test one.

import { qualifiedNameErrors } from '../selector/label-syntax.js';
import { InvalidConditionError } from './invalid-condition-error.js';

/**
 * The status of a condition, as Kubernetes spells it.
 *
 * @example
 * ```ts
 * import type { ConditionStatus } from '@kindex/core';
 *
 * const undecided: ConditionStatus = 'Unknown';
 * ```
 */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/**
 * One status condition (`meta/v1.Condition`), as stored in `status.conditions`.
 *
 * @example
 * ```ts
 * import type { Condition } from '@kindex/core';
 *
 * const ready: Condition = {
 *   type: 'Ready',
 *   status: 'True',
 *   observedGeneration: 3,
 *   lastTransitionTime: '2026-11-25T18:00:00Z',
 *   reason: 'AllDependentsReady',
 *   message: 'ConfigMap, Deployment and Service are ready',
 * };
 * ```
 */
export interface Condition {
  /** The aspect reported, a qualified name in CamelCase (`Ready`, `example.com/Synced`); unique in the list. */
  readonly type: string;
  /** Whether the aspect holds. */
  readonly status: ConditionStatus;
  /** The `metadata.generation` the reconciler acted on when it set the condition. */
  readonly observedGeneration?: number;
  /** When `status` last changed: RFC 3339 in seconds, as metav1.Time writes it. */
  readonly lastTransitionTime: string;
  /** Why, as one CamelCase word for programs (`DeploymentUnavailable`). */
  readonly reason: string;
  /** Why, for humans; may be empty. */
  readonly message: string;
}

/**
 * What {@link setStatusCondition} is given: a condition whose `lastTransitionTime` may be left out
 * (then it is the time of the call when the status changes) and whose `message` defaults to "".
 *
 * @example
 * ```ts
 * import type { ConditionInput } from '@kindex/core';
 *
 * const notReady: ConditionInput = { type: 'Ready', status: 'False', reason: 'DeploymentUnavailable', observedGeneration: 4 };
 * ```
 */
export interface ConditionInput {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  /** Defaults to "". */
  readonly message?: string;
  /** Defaults to none (the field is left out). */
  readonly observedGeneration?: number;
  /** Defaults to the time of the call, when the status changes or the condition is new. */
  readonly lastTransitionTime?: string;
}

/**
 * Options of {@link setStatusCondition}.
 *
 * @example
 * ```ts
 * import { setStatusCondition, type SetStatusConditionOptions } from '@kindex/core';
 *
 * // A fixed clock in a unit test.
 * const options: SetStatusConditionOptions = { now: () => new Date('2026-11-25T18:00:00Z') };
 * const conditions = setStatusCondition([], { type: 'Ready', status: 'True', reason: 'Reconciled' }, options);
 * ```
 */
export interface SetStatusConditionOptions {
  /** The clock stamping `lastTransitionTime`. Defaults to `() => new Date()`. */
  readonly now?: () => Date;
}

// metav1.Condition's validation (apimachinery/pkg/apis/meta/v1/validation ValidateCondition).
const REASON_RE = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const MAX_REASON = 1024;
const MAX_MESSAGE = 32768;
const RFC3339_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const STATUSES: readonly string[] = ['True', 'False', 'Unknown'];

/**
 * Adds a condition or updates the one of its type, with apimachinery's `SetStatusCondition`
 * semantics: `lastTransitionTime` is set when the condition is new or its `status` changes (to the
 * given time, else now) and kept otherwise; `reason`, `message` and `observedGeneration` are
 * replaced. Conditions of other types keep their order.
 *
 * @param conditions the current `status.conditions` (undefined counts as empty); not changed.
 * @returns a new frozen array, or `conditions` itself when nothing changed.
 * @throws {InvalidConditionError} when the input would be refused by the API server's condition
 * validation (type not a qualified name, status not True/False/Unknown, reason not CamelCase,
 * message over 32768 characters, negative observedGeneration, lastTransitionTime not RFC 3339).
 *
 * @example
 * ```ts
 * import { setStatusCondition, UpdateControl, type Condition, type KubernetesObject } from '@kindex/core';
 * type WebPage = KubernetesObject & { status?: { conditions?: readonly Condition[] } };
 * declare const page: WebPage;
 *
 * const conditions = setStatusCondition(page.status?.conditions, {
 *   type: 'Ready',
 *   status: 'True',
 *   reason: 'AllDependentsReady',
 *   message: 'every dependent is ready',
 *   observedGeneration: page.metadata?.generation,
 * });
 * const control =
 *   conditions === page.status?.conditions
 *     ? UpdateControl.noUpdate<WebPage>()
 *     : UpdateControl.patchStatus<WebPage>({ ...page, status: { ...page.status, conditions } });
 * ```
 * @see {@link removeStatusCondition}, {@link findStatusCondition}, {@link isStatusConditionTrue}
 */
export function setStatusCondition(
  conditions: readonly Condition[] | undefined,
  condition: ConditionInput,
  options: SetStatusConditionOptions = {},
): readonly Condition[] {
  validate(condition);
  const current = conditions ?? [];
  const at = current.findIndex((c) => c.type === condition.type);
  const stamp = (): string => condition.lastTransitionTime ?? metaTime((options.now ?? (() => new Date()))());
  if (at < 0) return Object.freeze([...current, build(condition, stamp())]);
  const existing = current[at]!;
  const statusChanged = existing.status !== condition.status;
  const next = build(condition, statusChanged ? stamp() : existing.lastTransitionTime);
  if (
    !statusChanged &&
    existing.reason === next.reason &&
    existing.message === next.message &&
    existing.observedGeneration === next.observedGeneration
  ) {
    return conditions!;
  }
  const out = [...current];
  out[at] = next;
  return Object.freeze(out);
}

/**
 * The condition of this type, or undefined.
 *
 * @example
 * ```ts
 * import { findStatusCondition, type Condition } from '@kindex/core';
 * declare const conditions: readonly Condition[] | undefined;
 *
 * const ready = findStatusCondition(conditions, 'Ready');
 * const since = ready?.lastTransitionTime;
 * ```
 */
export function findStatusCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * Drops the condition of this type.
 *
 * @returns a new frozen array, or `conditions` itself when it had no condition of the type.
 *
 * @example
 * ```ts
 * import { removeStatusCondition, type Condition } from '@kindex/core';
 * declare const conditions: readonly Condition[];
 *
 * // The Degraded condition no longer applies once the operator stops reporting it.
 * const next = removeStatusCondition(conditions, 'Degraded');
 * ```
 */
export function removeStatusCondition(conditions: readonly Condition[] | undefined, type: string): readonly Condition[] {
  const current = conditions ?? Object.freeze([]);
  if (!current.some((c) => c.type === type)) return current;
  return Object.freeze(current.filter((c) => c.type !== type));
}

/**
 * Whether the condition of this type is present with status True.
 *
 * @example
 * ```ts
 * import { isStatusConditionTrue, type Condition } from '@kindex/core';
 * declare const conditions: readonly Condition[] | undefined;
 *
 * if (!isStatusConditionTrue(conditions, 'Ready')) console.log('not ready yet');
 * ```
 */
export function isStatusConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'True');
}

/**
 * Whether the condition of this type is present with status False (absent is neither true nor false).
 *
 * @example
 * ```ts
 * import { isStatusConditionFalse, type Condition } from '@kindex/core';
 * declare const conditions: readonly Condition[] | undefined;
 *
 * const failed = isStatusConditionFalse(conditions, 'Ready');
 * ```
 */
export function isStatusConditionFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'False');
}

/**
 * Whether the condition of this type is present with this status.
 *
 * @example
 * ```ts
 * import { isStatusConditionPresentAndEqual, type Condition } from '@kindex/core';
 * declare const conditions: readonly Condition[] | undefined;
 *
 * const undecided = isStatusConditionPresentAndEqual(conditions, 'Ready', 'Unknown');
 * ```
 */
export function isStatusConditionPresentAndEqual(
  conditions: readonly Condition[] | undefined,
  type: string,
  status: ConditionStatus,
): boolean {
  return findStatusCondition(conditions, type)?.status === status;
}

/** A time as metav1.Time serializes it: RFC 3339 in whole seconds, UTC. */
function metaTime(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

function build(input: ConditionInput, lastTransitionTime: string): Condition {
  return Object.freeze({
    type: input.type,
    status: input.status,
    ...(input.observedGeneration === undefined ? {} : { observedGeneration: input.observedGeneration }),
    lastTransitionTime,
    reason: input.reason,
    message: input.message ?? '',
  });
}

function validate(c: ConditionInput): void {
  const type = typeof c.type === 'string' ? c.type : String(c.type);
  const fail = (field: string, problem: string, fix: string): never => {
    throw new InvalidConditionError(type, field, problem, fix);
  };
  if (typeof c.type !== 'string' || c.type === '') fail('type', 'is required', 'name the aspect, e.g. "Ready"');
  const typeProblems = qualifiedNameErrors(c.type);
  if (typeProblems.length > 0) fail('type', typeProblems.join('; '), 'use a qualified name such as "Ready" or "example.com/Synced"');
  if (!STATUSES.includes(c.status)) fail('status', `is ${JSON.stringify(c.status)}`, 'use "True", "False" or "Unknown"');
  if (typeof c.reason !== 'string' || c.reason === '')
    fail('reason', 'is required', 'give a CamelCase reason such as "DeploymentUnavailable"');
  if (c.reason.length > MAX_REASON) fail('reason', `has ${c.reason.length} characters`, `keep it to ${MAX_REASON}`);
  if (!REASON_RE.test(c.reason))
    fail(
      'reason',
      `${JSON.stringify(c.reason)} is not CamelCase`,
      'start with a letter and use letters, digits, "_", "," or ":" (e.g. "DeploymentUnavailable"); put prose in message',
    );
  if (c.message !== undefined && typeof c.message !== 'string') fail('message', 'is not a string', 'pass text or leave it out');
  if (c.message !== undefined && c.message.length > MAX_MESSAGE)
    fail('message', `has ${c.message.length} characters`, `keep it to ${MAX_MESSAGE}`);
  if (c.observedGeneration !== undefined && !(Number.isSafeInteger(c.observedGeneration) && c.observedGeneration >= 0))
    fail('observedGeneration', `is ${String(c.observedGeneration)}`, 'pass metadata.generation (a non-negative integer)');
  if (c.lastTransitionTime !== undefined && !(RFC3339_RE.test(c.lastTransitionTime) && !Number.isNaN(Date.parse(c.lastTransitionTime))))
    fail('lastTransitionTime', `${JSON.stringify(c.lastTransitionTime)} is not an RFC 3339 time`, 'leave it out to use the current time');
}
