import type { ResourceEventType } from '../event/resource-event.js';

/**
 * An event handler failed to map (part of) one event to primary IDs: its map function threw, or
 * the object has a malformed field (an owner reference without a kind).
 *
 * Carries the key of the object concerned (for updates: the old or the new version, whichever
 * failed), the event type, the handler's name and, for a malformed field, its path (as
 * `metadata.ownerReferences[1].kind`); the underlying error is in `cause`.
 *
 * @example
 * ```ts
 * import { HandlerError } from '@kindex/core';
 * declare const problem: unknown; // as an event source reports it
 *
 * if (problem instanceof HandlerError) {
 *   // `field` names the bad part of the object, e.g. metadata.ownerReferences[0].apiVersion.
 *   console.warn(`${problem.objectKey}: ${problem.field ?? '(object)'}: ${problem.message}`);
 * }
 * ```
 */
export class HandlerError extends Error {
  override readonly name = 'HandlerError';
  readonly code = 'KINDEX_HANDLER_FAILED';
  /** `namespace/name` of the object concerned, undefined when it has no usable name. */
  readonly objectKey: string | undefined;
  /** Type of the event being mapped. */
  readonly eventType: ResourceEventType;
  /** Name of the handler (`EventHandler.name`, or `'anonymous'`). */
  readonly handler: string;
  /** Path of the malformed field, when a field is to blame. */
  readonly field: string | undefined;

  constructor(
    handler: string,
    eventType: ResourceEventType,
    objectKey: string | undefined,
    field: string | undefined,
    options?: { cause?: unknown },
  ) {
    const cause = options?.cause;
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      `handler ${handler} failed on ${eventType} event of ${objectKey ? `object ${objectKey}` : 'an unnamed object'}` +
        `${field ? ` (${field})` : ''}: ${why}`,
      options,
    );
    this.handler = handler;
    this.eventType = eventType;
    this.objectKey = objectKey;
    this.field = field;
  }
}
