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

/** Passes when `fn` returns false (kopf's `not_`). */
export function not_<A extends readonly unknown[]>(fn: Judge<A>): Judge<A> {
  return (...args) => !fn(...args);
}

/** Passes when at least one callback returns true (kopf's `any_`); `any_([])` never passes. */
export function any_<A extends readonly unknown[]>(fns: readonly Judge<A>[]): Judge<A> {
  const list = fns.slice();
  return (...args) => list.some((fn) => fn(...args));
}

/** Passes when every callback returns true (kopf's `all_`); `all_([])` always passes. */
export function all_<A extends readonly unknown[]>(fns: readonly Judge<A>[]): Judge<A> {
  const list = fns.slice();
  return (...args) => list.every((fn) => fn(...args));
}

/** Passes when every callback returns false (kopf's `none_`); `none_([])` always passes. */
export function none_<A extends readonly unknown[]>(fns: readonly Judge<A>[]): Judge<A> {
  const list = fns.slice();
  return (...args) => !list.some((fn) => fn(...args));
}
