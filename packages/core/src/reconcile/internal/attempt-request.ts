import type { RetryInfo } from '../../queue/retry.js';
import type { DispatchRequest } from '../event-processor-options.js';
import type { ReconcileCauses } from '../reconcile-cause.js';
import type { LazyAbortController } from './lazy-abort-controller.js';

/**
 * What the dispatcher is handed: its signal is made on first read. A class, so the getter is
 * shared on the prototype rather than a fresh accessor closure per reconcile.
 */
export class AttemptRequest implements DispatchRequest {
  readonly retryInfo: RetryInfo | undefined;
  readonly causes: ReconcileCauses;
  readonly startedAt: number;
  readonly #abort: LazyAbortController;

  constructor(retryInfo: RetryInfo | undefined, causes: ReconcileCauses, abort: LazyAbortController, startedAt: number) {
    this.retryInfo = retryInfo;
    this.causes = causes;
    this.#abort = abort;
    this.startedAt = startedAt;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }
}
