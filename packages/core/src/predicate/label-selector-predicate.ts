import type { KubernetesObject } from '../resource/kubernetes-object.js';
import { LabelSelector } from '../selector/label-selector.js';
import type { LabelSelectorObject } from '../selector/label-selector.js';
import type { Predicate } from './predicate.js';
import { newPredicateFuncs } from './predicate.js';

/**
 * Passes events whose object's labels match a selector, for every event type; updates test the
 * NEW object (controller-runtime's LabelSelectorPredicate).
 *
 * Caveats: this filters events, not the cache: objects outside the selector are still listed,
 * watched and cached. To keep them out of memory, narrow the informer with a selector instead.
 * An object whose labels stop matching produces a dropped update, not a delete; use
 * `stealthTransition` to see it leave.
 *
 * @param selector A selector string (`app=web,tier in (a,b)`), a {@link LabelSelector}, or a
 *   metav1.LabelSelector object (`{ matchLabels, matchExpressions }`).
 * @throws {InvalidSelectorError} when the string does not parse (at construction, not per event).
 *
 * @example
 * ```ts
 * import { labelSelector } from '@kindex/core';
 *
 * const prodWeb = labelSelector('environment=prod,tier in (web,api)');
 * const fromSpec = labelSelector({ matchLabels: { app: 'web' } });
 * ```
 */
export function labelSelector<R extends KubernetesObject = KubernetesObject>(
  selector: string | LabelSelector | LabelSelectorObject,
): Predicate<R> {
  const s =
    typeof selector === 'string'
      ? LabelSelector.parse(selector)
      : selector instanceof LabelSelector
        ? selector
        : LabelSelector.fromSelector(selector);
  return newPredicateFuncs<R>((obj) => s.matches(obj.metadata?.labels), `labelSelector(${String(s)})`);
}
