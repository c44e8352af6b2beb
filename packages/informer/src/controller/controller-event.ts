import type { ProcessingEvent, Trigger } from '@kindex/core';

/**
 * What happened in a controller, for timelines, logs and tests.
 *
 * @example
 * ```ts
 * import type { Controller, ControllerEvent } from '@kindex/informer';
 * declare const controller: Controller;
 *
 * controller.events$.subscribe((event: ControllerEvent) => {
 *   if (event.type === 'problem') console.warn(`${event.source}:`, event.error);
 *   if (event.type === 'reconciled' && event.wrote.length > 0) console.log(`${event.key} wrote ${event.wrote.join(', ')}`);
 * });
 * ```
 */
export type ControllerEvent =
  | { readonly type: 'trigger'; readonly trigger: Trigger }
  | { readonly type: 'processing'; readonly event: ProcessingEvent }
  | ControllerReconciledEvent
  | ControllerProblemEvent;

/**
 * A reconcile that ended: the primary's key, the control the reconciler returned and what kindex
 * wrote for it (`Controller.reconciled$`, and among `events$`).
 *
 * @example
 * ```ts
 * import type { Controller, ControllerReconciledEvent } from '@kindex/informer';
 * declare const controller: Controller;
 *
 * controller.reconciled$.subscribe((e: ControllerReconciledEvent) => {
 *   if (e.wrote.length > 0) console.log(`${e.key}: ${e.control}, wrote ${e.wrote.join(', ')}`);
 * });
 * ```
 */
export interface ControllerReconciledEvent {
  readonly type: 'reconciled';
  readonly key: string;
  readonly control: string;
  readonly wrote: readonly ('status' | 'resource' | 'finalizer')[];
}

/**
 * A problem the controller moved past: a source's, a filter's or mapper's, a cache's
 * (`Controller.problems$`, and among `events$`).
 *
 * @example
 * ```ts
 * import type { Controller, ControllerProblemEvent } from '@kindex/informer';
 * declare const controller: Controller;
 *
 * controller.problems$.subscribe((p: ControllerProblemEvent) => console.warn(`${p.source}:`, p.error));
 * ```
 */
export interface ControllerProblemEvent {
  readonly type: 'problem';
  /** The event source (or `primary`, `namespace-selector`) that reported it. */
  readonly source: string;
  readonly error: unknown;
}

/**
 * Name of the controller's own source of primary events.
 *
 * @example
 * ```ts
 * import { type Controller } from '@kindex/informer';
 * import { PRIMARY_SOURCE_NAME } from '@kindex/informer/internal';
 * declare const controller: Controller;
 *
 * // Tell primary events apart from secondary ones.
 * controller.events$.subscribe((e) => {
 *   if (e.type === 'trigger' && e.trigger.source === PRIMARY_SOURCE_NAME) console.log('primary changed', e.trigger.primaryIds.map(String));
 * });
 * ```
 */
export const PRIMARY_SOURCE_NAME = 'primary';

/** Name under which the controller's namespace selector reports (startup errors, problems). */
export const NAMESPACE_SELECTOR_SOURCE_NAME = 'namespace-selector';
