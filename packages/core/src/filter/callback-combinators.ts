/**
 * kopf's callback helpers: combine value callbacks (`labels`, `annotations`, `value`, `old`,
 * `new`) or whole-event callbacks (`when`) into one. Semantics of Python's built-ins: `any_([])`
 * is false, `all_([])` and `none_([])` are true. Each short-circuits, so later callbacks may not run.
 *
 * @example
 * ```ts
 * kopfFilter<KopfExample>({
 *   when: all_([({ name }) => name?.startsWith('kopf-') === true, ({ spec }) => spec?.field === 'value']),
 *   labels: { somelabel: any_([(v) => v?.startsWith('some') === true, (v) => v?.endsWith('label') === true]) },
 * });
 * ```
 * @module
 */

/** A callback judging something: a value and the event context, or the context alone. */
export type Judge<A extends readonly unknown[]> = (...args: A) => boolean;

/** Passes when `fn` returns false (kopf's `not_`). Typing as {@link any_}. */
export function not_<A extends readonly unknown[]>(fn: Judge<NoInfer<A>>): Judge<A>;
export function not_<A extends readonly unknown[]>(fn: Judge<A>): Judge<A>;
export function not_<A extends readonly unknown[]>(fn: Judge<A>): Judge<A> {
  return (...args) => !fn(...args);
}

/**
 * Passes when at least one callback returns true (kopf's `any_`); `any_([])` never passes.
 *
 * Callbacks may judge different contexts (one written for any object, one for a `Job`, one
 * taking only the value): each accepts the arguments the combination receives. Inside a filter
 * spec the combination takes its argument types from the spec (first overload), so untyped
 * lambdas are typed by it; standalone, they are inferred from the callbacks (second overload).
 */
export function any_<A extends readonly unknown[]>(fns: readonly Judge<NoInfer<A>>[]): Judge<A>;
export function any_<A extends readonly unknown[]>(fns: readonly Judge<A>[]): Judge<A>;
export function any_<A extends readonly unknown[]>(fns: readonly Judge<A>[]): Judge<A> {
  const list = fns.slice();
  return (...args) => list.some((fn) => fn(...args));
}

/** Passes when every callback returns true (kopf's `all_`); `all_([])` always passes. Typing as {@link any_}. */
export function all_<A extends readonly unknown[]>(fns: readonly Judge<NoInfer<A>>[]): Judge<A>;
export function all_<A extends readonly unknown[]>(fns: readonly Judge<A>[]): Judge<A>;
export function all_<A extends readonly unknown[]>(fns: readonly Judge<A>[]): Judge<A> {
  const list = fns.slice();
  return (...args) => list.every((fn) => fn(...args));
}

/** Passes when every callback returns false (kopf's `none_`); `none_([])` always passes. Typing as {@link any_}. */
export function none_<A extends readonly unknown[]>(fns: readonly Judge<NoInfer<A>>[]): Judge<A>;
export function none_<A extends readonly unknown[]>(fns: readonly Judge<A>[]): Judge<A>;
export function none_<A extends readonly unknown[]>(fns: readonly Judge<A>[]): Judge<A> {
  const list = fns.slice();
  return (...args) => !list.some((fn) => fn(...args));
}
