import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { ResourceEvent } from '../event/resource-event.js';
import type { FilterError } from './filter-error.js';
import type { Predicate } from './predicate.js';
import { callPredicate } from './internal/call-predicate.js';

/**
 * Receives the error of a predicate that threw; see {@link evaluate}.
 *
 * @example
 * ```ts
 * import { evaluate, generationChanged, type FilterErrorListener, type ResourceEvent } from '@kindex/core';
 * declare const event: ResourceEvent;
 *
 * const logAndPass: FilterErrorListener = (error) => console.warn(`${error.predicate} threw on ${error.objectKey}`, error.cause);
 * const keep = evaluate(generationChanged(), event, logAndPass);
 * ```
 */
export type FilterErrorListener = (error: FilterError) => void;

/**
 * Runs a predicate on one event: the single place that dispatches on `event.type`.
 *
 * Error contract: when the predicate (or any predicate inside it) throws, the error is wrapped in
 * a {@link FilterError} carrying the object's key, the event type and the throwing predicate's
 * name. With `onError`, the error is handed to it and the event PASSES (`true`): a reconcile too
 * many is harmless to a level-based reconciler, a lost event is not, and one broken filter must
 * never stop the stream or other objects. Without `onError`, the FilterError is thrown (tests,
 * and callers who want to decide themselves). The event processor always passes `onError`.
 *
 * @returns whether the event should go on to the event handlers.
 *
 * @example
 * ```ts
 * import { and, evaluate, generationChanged, labelSelector, type ResourceEvent } from '@kindex/core';
 * declare const event: ResourceEvent;
 *
 * // Test a predicate outside a controller, for example in a unit test of your filters.
 * const filter = and(labelSelector('app=web'), generationChanged());
 * const keep = evaluate(filter, event, (error) => console.warn(error.message));
 * ```
 */
export function evaluate<R extends KubernetesObject>(
  predicate: Predicate<R>,
  event: ResourceEvent<R>,
  onError?: FilterErrorListener,
): boolean {
  if (onError === undefined) return callPredicate(predicate, event);
  try {
    return callPredicate(predicate, event);
  } catch (err) {
    onError(err as FilterError); // callPredicate throws nothing but FilterErrors
    return true;
  }
}
