/**
 * Predicates: controller-runtime style event filters.
 *
 * A {@link Predicate} answers, per event type, whether an event should go on to the event handlers
 * (and so to a reconcile). A missing function passes. All predicates registered on a controller
 * are ANDed: the first `false` drops the event.
 *
 * Built-ins and when to choose each:
 * - {@link generationChanged}: reconcile on spec changes only (drops status-only writes: read its
 *   Caveats).
 * - {@link labelsChanged}, {@link annotationsChanged}: react to metadata edits, usually ORed with
 *   `generationChanged()`.
 * - {@link resourceVersionChanged}: drop resyncs that deliver an unchanged object.
 * - {@link labelSelector}: only objects whose labels match a selector.
 * - {@link newPredicateFuncs}: one object test for every event type.
 * - {@link and}, {@link or}, {@link not}, {@link funcs}: compose and write your own.
 *
 * kopf-style declarative filters (`kopfFilter`) compile to this same model.
 *
 * @module
 */
import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from '../event/resource-event.js';

/**
 * Decides, per event type, whether an event goes on to the event handlers.
 *
 * Contract: each function returns `true` to keep the event; a missing function keeps every event
 * of its type. Functions must be pure and fast: they run on the event path, once per event, and
 * may run again for the same object (a stealth check, a retry). A function that throws is
 * reported as a {@link FilterError}; see {@link evaluate} for what happens to the event.
 *
 * @example
 * ```ts
 * import type { Predicate } from '@kindex/core';
 * const ignoreStatusOnly: Predicate = { name: 'ignoreStatusOnly', update: (e) =>
 *   e.oldObject.metadata?.generation !== e.object.metadata?.generation };
 * ```
 */
export interface Predicate<R extends KubernetesObject = KubernetesObject> {
  /** Name in error reports and in the names of composed predicates. Defaults to `'anonymous'`. */
  readonly name?: string;
  /** Keeps (`true`) or drops a create event, including the synthetic creates of the initial list. */
  create?(event: CreateEvent<R>): boolean;
  /** Keeps or drops an update; compare `event.oldObject` with `event.object` to react to one kind of change only. */
  update?(event: UpdateEvent<R>): boolean;
  /** Keeps or drops a delete; `event.deleteStateUnknown` marks a delete inferred after a missed watch event. */
  delete?(event: DeleteEvent<R>): boolean;
  /** Keeps or drops a generic event (a trigger from outside the cluster, such as a timer or a poll). */
  generic?(event: GenericEvent<R>): boolean;
}

/**
 * A predicate from per-event-type functions (controller-runtime's `Funcs`); a function left out
 * passes every event of its type.
 *
 * @example
 * ```ts
 * import { funcs } from '@kindex/core';
 * const ignoreDeletion = funcs({
 *   name: 'ignoreDeletion',
 *   update: (e) => e.oldObject.metadata?.generation !== e.object.metadata?.generation,
 *   delete: (e) => !e.deleteStateUnknown,
 * });
 * ```
 */
export function funcs<R extends KubernetesObject = KubernetesObject>(fns: Predicate<R>): Predicate<R> {
  return Object.freeze({ name: 'funcs', ...fns });
}

/**
 * A predicate that applies one object test to every event type: create, delete and generic test
 * the event's object, update tests the NEW object (as controller-runtime's `NewPredicateFuncs`).
 *
 * @param name Name in error reports. Defaults to `'predicateFuncs'`.
 *
 * @example
 * ```ts
 * import { newPredicateFuncs } from '@kindex/core';
 *
 * // Only objects that opted in, whatever the event type.
 * const optedIn = newPredicateFuncs((o) => o.metadata?.annotations?.['example.com/managed'] === 'true', 'optedIn');
 * ```
 */
export function newPredicateFuncs<R extends KubernetesObject = KubernetesObject>(
  filter: (object: R) => boolean,
  name = 'predicateFuncs',
): Predicate<R> {
  return Object.freeze({
    name,
    create: (e: CreateEvent<R>) => filter(e.object),
    update: (e: UpdateEvent<R>) => filter(e.object),
    delete: (e: DeleteEvent<R>) => filter(e.object),
    generic: (e: GenericEvent<R>) => filter(e.object),
  });
}
