/**
 * Event handlers: map an event to the IDs of the primary resources to reconcile.
 *
 * A handler returns IDs and never touches the work queue; the event processor enqueues them.
 * Built-ins and when to use each:
 * - {@link enqueueForObject}: events of the primary resource itself (the default for a
 *   controller's own kind).
 * - {@link enqueueForOwner}: events of objects the primary owns (ownerReferences), for
 *   Deployments owning ReplicaSets and the like.
 * - {@link enqueueFromMapFunc}: anything else: a label, an annotation, a field, an index lookup.
 *   (If Job reconciles react to Cluster events, map each Cluster to its Jobs.)
 *
 * On updates the built-ins map both the old and the new object and return the union, so a
 * reference that moves reconciles both the old and the new primary.
 *
 * Wiring, per event, in the event processor (filters and handlers never hold the queue):
 * ```ts
 * const seen = stealth ? stealth(event, reportFilterError) : event; // optional kopf stealth mode
 * if (seen !== undefined && evaluate(and(...predicates), seen, reportFilterError)) {
 *   for (const id of mapEvent(handler, seen, reportHandlerError)) queue.add(id.key);
 * }
 * ```
 *
 * @module
 */
import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { ResourceEvent } from '../event/resource-event.js';
import { InvalidResourceError, ResourceID } from '../resource/resource-id.js';
import { objectKeyOf } from '../internal/object-key.js';
import { HandlerError } from './handler-error.js';

/**
 * How a handler reports a problem and goes on: the error (an {@link InvalidResourceError} names
 * the field) and the object concerned (defaults to the event's object).
 *
 * @example
 * ```ts
 * import { InvalidResourceError, ResourceID, type EventHandler, type HandlerProblemReporter } from '@kindex/core';
 *
 * const byAppLabel: EventHandler = {
 *   name: 'byAppLabel',
 *   map(event, report: HandlerProblemReporter) {
 *     const app = event.object.metadata?.labels?.['app'];
 *     if (app === undefined) {
 *       report(new InvalidResourceError(event.object.metadata?.name, 'metadata.labels.app', 'is missing'), event.object);
 *       return [];
 *     }
 *     return [ResourceID.of(app, event.object.metadata?.namespace)];
 *   },
 * };
 * ```
 */
export type HandlerProblemReporter<R extends KubernetesObject = KubernetesObject> = (problem: unknown, object?: R) => void;

/**
 * Receives the errors of a handler; see {@link mapEvent}.
 *
 * @example
 * ```ts
 * import { enqueueForObject, type ResourceEvent } from '@kindex/core';
 * import { mapEvent, type HandlerErrorListener } from '@kindex/core/internal';
 * declare const event: ResourceEvent;
 *
 * const warn: HandlerErrorListener = (error) => console.warn(`${error.handler} on ${error.objectKey}: ${error.message}`);
 * const ids = mapEvent(enqueueForObject(), event, warn);
 * ```
 */
export type HandlerErrorListener = (error: HandlerError) => void;

/**
 * Maps an event to the IDs of the primary resources to reconcile.
 *
 * Contract: `map` is pure (it may run more than once per event) and returns IDs, duplicates
 * allowed (the caller dedupes). A problem with part of the event (one malformed owner
 * reference, one side of an update) goes to `report`, and the rest is still mapped; a `map`
 * that throws loses only what it had not yet returned. Handlers run only after the cache and
 * indexes show the event.
 *
 * @example
 * ```ts
 * import { ResourceID, type EventHandler, type KubernetesObject } from '@kindex/core';
 * type Job = KubernetesObject;
 * const byClusterLabel: EventHandler<Job> = {
 *   name: 'byClusterLabel',
 *   map: (e) => { const c = e.object.metadata?.labels?.['cluster']; return c ? [ResourceID.of(c)] : []; },
 * };
 * ```
 */
export interface EventHandler<R extends KubernetesObject = KubernetesObject> {
  /** Name in error reports. Defaults to `'anonymous'`. */
  readonly name?: string;
  /**
   * The primaries to reconcile for one event. Report a bad object through `report` instead of
   * throwing, so the other primaries of the event still get reconciled.
   */
  map(event: ResourceEvent<R>, report: HandlerProblemReporter<R>): Iterable<ResourceID>;
}

/**
 * Runs a handler on one event and returns the distinct IDs it produced, in first-seen order.
 *
 * Error contract (as `evaluate` for predicates): every problem becomes a {@link HandlerError}
 * carrying the object key, the event type, the handler's name and the field when one is to blame.
 * With `onError`, each error goes to it and mapping goes on: the IDs that could be computed are
 * returned, so one bad owner reference or one throwing map call never hides the others. Without
 * `onError`, the first error is thrown.
 *
 * @example
 * ```ts
 * import { enqueueForOwner, type ResourceEvent } from '@kindex/core';
 * import { mapEvent } from '@kindex/core/internal';
 * declare const podEvent: ResourceEvent;
 *
 * // Which ReplicaSets does this Pod event concern? Bad owner references are reported, not thrown.
 * const ids = mapEvent(enqueueForOwner({ group: 'apps', kind: 'ReplicaSet' }), podEvent, (error) => console.warn(error.message));
 * ```
 */
export function mapEvent<R extends KubernetesObject>(
  handler: EventHandler<R>,
  event: ResourceEvent<R>,
  onError?: HandlerErrorListener,
): ResourceID[] {
  const name = typeof handler.name === 'string' && handler.name !== '' ? handler.name : 'anonymous';
  const fail = (problem: unknown, object: R | undefined): void => {
    const field = problem instanceof InvalidResourceError ? problem.field : undefined;
    const err =
      problem instanceof HandlerError
        ? problem
        : new HandlerError(name, event.type, objectKeyOf(object ?? event.object), field, { cause: problem });
    if (onError === undefined) throw err;
    onError(err);
  };
  const out: ResourceID[] = [];
  // Events map to a handful of primaries: a linear scan beats building a Set until the list grows.
  let seen: Set<string> | undefined;
  try {
    for (const id of handler.map(event, (problem, object) => fail(problem, object))) {
      if (!(id instanceof ResourceID)) {
        fail(new TypeError(`map returned ${id === null ? 'null' : typeof id}, not a ResourceID`), undefined);
        continue;
      }
      if (seen === undefined && out.length < 16) {
        if (!out.some((o) => o.key === id.key)) out.push(id);
        continue;
      }
      seen ??= new Set(out.map((o) => o.key));
      if (!seen.has(id.key)) {
        seen.add(id.key);
        out.push(id);
      }
    }
  } catch (err) {
    if (err instanceof HandlerError && onError === undefined) throw err;
    fail(err, undefined);
  }
  return out;
}
