import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { ResourceEvent } from '../event/resource-event.js';
import type { Predicate } from './predicate.js';
import { callPredicate, predicateName } from './internal/call-predicate.js';

type EventFn<R extends KubernetesObject> = (e: ResourceEvent<R>) => boolean;

/** Builds a predicate whose every event-type function is `fn`. */
function allTypes<R extends KubernetesObject>(name: string, fn: EventFn<R>): Predicate<R> {
  return Object.freeze({ name, create: fn, update: fn, delete: fn, generic: fn });
}

/**
 * Passes an event only when every predicate passes it; `and()` of nothing passes everything.
 * Stops at the first `false`, so later predicates do not run.
 *
 * @example
 * ```ts
 * import { and, generationChanged, labelSelector, labelsChanged, or } from '@kindex/core';
 * const webChanges = and(labelSelector('app=web'), or(generationChanged(), labelsChanged()));
 * ```
 * @see or
 * @see not
 */
export function and<R extends KubernetesObject = KubernetesObject>(...predicates: Predicate<R>[]): Predicate<R> {
  const ps = predicates.slice();
  return allTypes(`and(${ps.map(predicateName).join(', ')})`, (e) => {
    for (const p of ps) if (!callPredicate(p, e)) return false;
    return true;
  });
}

/**
 * Passes an event when at least one predicate passes it; `or()` of nothing passes nothing.
 * Stops at the first `true`.
 *
 * @see and
 *
 * @example
 * ```ts
 * import { generationChanged, labelsChanged, or } from '@kindex/core';
 *
 * const specOrLabels = or(generationChanged(), labelsChanged());
 * ```
 */
export function or<R extends KubernetesObject = KubernetesObject>(...predicates: Predicate<R>[]): Predicate<R> {
  const ps = predicates.slice();
  return allTypes(`or(${ps.map(predicateName).join(', ')})`, (e) => {
    for (const p of ps) if (callPredicate(p, e)) return true;
    return false;
  });
}

/**
 * Inverts a predicate for every event type. A function the operand leaves out passes, so its
 * negation drops: `not({ update })` drops every create, delete and generic event.
 *
 * @see and
 *
 * @example
 * ```ts
 * import { labelSelector, not } from '@kindex/core';
 *
 * // Everything except the objects another operator manages.
 * const notTheirs = not(labelSelector('app.kubernetes.io/managed-by=legacy-operator'));
 * ```
 */
export function not<R extends KubernetesObject = KubernetesObject>(predicate: Predicate<R>): Predicate<R> {
  return allTypes(`not(${predicateName(predicate)})`, (e) => !callPredicate(predicate, e));
}
