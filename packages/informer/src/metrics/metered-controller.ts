import type { ProcessingEvent } from '@kindex/core';

/**
 * A controller as `ControllerMetrics` follows it: its name, concurrency and workers, and its
 * processing steps by a direct listener. Declared here so metrics/ depends on this port and not on the concrete `Controller`,
 * which implements it.
 *
 * @example
 * ```ts
 * import { type Controller, type MeteredController } from '@kindex/informer';
 * declare const controller: Controller;
 *
 * // A Controller is what the operator's controller metrics observe.
 * const metered: MeteredController = controller;
 * ```
 */
export interface MeteredController {
  /** The controller's name: the `controller` label of its series. */
  readonly name: string;
  /** Its reconcile concurrency (`controller_runtime_max_concurrent_reconciles`). */
  readonly configuration: { readonly concurrency: number };
  /** Its work queue, once started (`controller_runtime_active_workers`). */
  readonly processor:
    | {
        /** The queue's figures now: how many reconciles run. */
        stats(): { readonly processing: number };
      }
    | undefined;
  /** Calls `listener` with each processing step, by a direct call; returns the function that removes it. */
  onProcessingEvent(listener: (event: ProcessingEvent) => void): () => void;
}
