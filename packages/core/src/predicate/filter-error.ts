import type { ResourceEventType } from '../event/resource-event.js';

/**
 * A predicate or filter threw while judging one event.
 *
 * Carries the key of the object the event was about, the event type and the name of the
 * predicate that threw (the innermost one when predicates are combined); the thrown value is in
 * `cause`. See {@link evaluate} for what happens to the event.
 *
 * @example
 * ```ts
 * import { evaluate, FilterError, funcs, type ResourceEvent } from '@kindex/core';
 * declare const event: ResourceEvent;
 *
 * const strict = funcs({ name: 'strict', update: (e) => e.object.metadata!.labels!['tier'] === 'web' });
 * try {
 *   evaluate(strict, event); // without onError, a throwing predicate throws a FilterError
 * } catch (error) {
 *   if (error instanceof FilterError) console.error(`${error.predicate} failed on ${error.eventType} of ${error.objectKey}`);
 * }
 * ```
 */
export class FilterError extends Error {
  override readonly name = 'FilterError';
  readonly code = 'KINDEX_FILTER_FAILED';
  /** `namespace/name` of the event's object, undefined when the object has no usable name. */
  readonly objectKey: string | undefined;
  /** Type of the event being judged. */
  readonly eventType: ResourceEventType;
  /** Name of the predicate that threw (`Predicate.name`, or `'anonymous'`). */
  readonly predicate: string;

  constructor(predicate: string, eventType: ResourceEventType, objectKey: string | undefined, options?: { cause?: unknown }) {
    const cause = options?.cause;
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      `predicate ${predicate} threw on ${eventType} event of ${objectKey ? `object ${objectKey}` : 'an unnamed object'}: ${why}`,
      options,
    );
    this.predicate = predicate;
    this.eventType = eventType;
    this.objectKey = objectKey;
  }
}
