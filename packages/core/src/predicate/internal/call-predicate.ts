import type { KubernetesObject } from '../../resource/kubernetes-object.js';
import type { ResourceEvent } from '../../event/resource-event.js';
import type { Predicate } from '../predicate.js';
import { FilterError } from '../filter-error.js';
import { objectKeyOf } from '../../internal/object-key.js';

/**
 * The one switch on `event.type`: runs the predicate's function for the event (a missing one
 * passes; a non-boolean answer from plain JS counts by truthiness, as kopf's) and turns anything it throws into a {@link FilterError} naming this predicate.
 *
 * Combinators call their operands through here, so the error names the innermost predicate that
 * threw; a FilterError coming up from an operand is passed on untouched.
 */
export function callPredicate<R extends KubernetesObject>(predicate: Predicate<R>, event: ResourceEvent<R>): boolean {
  try {
    switch (event.type) {
      case 'create':
        return predicate.create === undefined ? true : Boolean(predicate.create(event));
      case 'update':
        return predicate.update === undefined ? true : Boolean(predicate.update(event));
      case 'delete':
        return predicate.delete === undefined ? true : Boolean(predicate.delete(event));
      case 'generic':
        return predicate.generic === undefined ? true : Boolean(predicate.generic(event));
      default:
        throw new TypeError(`unknown event type ${JSON.stringify((event as { type?: unknown }).type)}`);
    }
  } catch (err) {
    if (err instanceof FilterError) throw err;
    throw new FilterError(predicateName(predicate), event.type, objectKeyOf(event.object), { cause: err });
  }
}

/** The name used in error reports and in the names of composed predicates. */
export function predicateName(predicate: Predicate<never>): string {
  return typeof predicate.name === 'string' && predicate.name !== '' ? predicate.name : 'anonymous';
}
