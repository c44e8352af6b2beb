/**
 * How long a reflector waits before it reads again, and the bookkeeping behind it: a 410 Gone
 * relists at once the first time (the resourceVersion the watch resumed from is gone; nothing is
 * wrong with the server), with backoff from the second in a row without a watch event between (a
 * server whose watch cache cannot keep up would otherwise be listed in a tight loop); a 429 waits
 * for its Retry-After; any other failure, and a watch that ended at once with nothing delivered,
 * waits the next step of the jittered exponential {@link Backoff}.
 *
 * @module
 */
import { KubeApiError } from '../../client/kube-api-error.js';
import type { BackoffOptions } from '../backoff-options.js';
import { Backoff } from './backoff.js';

/** The waits between a reflector's reads, in milliseconds; 0 means go on at once. */
export class ReconnectDelays {
  readonly #backoff: Backoff;
  #expiredInARow = 0;

  constructor(options?: BackoffOptions) {
    this.#backoff = new Backoff(options);
  }

  /** A watch event (or an undecodable frame) arrived: the next 410 counts as the first in a row. */
  delivered(): void {
    this.#expiredInARow = 0;
  }

  /** The wait after 410 Gone, before the state is read again. */
  afterExpired(): number {
    return ++this.#expiredInARow > 1 ? this.#backoff.next() : 0;
  }

  /**
   * The wait after a failure that is not a 410: the server's own estimate for a 429 with
   * Retry-After, else the next backoff step (a missing or zero Retry-After falls back to the
   * backoff, so a server that keeps answering 429 is never hammered in a tight loop).
   */
  afterFailure(error: Error): number {
    const retryAfter = error instanceof KubeApiError && error.status === 429 ? (error.retryAfterSeconds ?? 0) : 0;
    return retryAfter > 0 ? retryAfter * 1000 : this.#backoff.next();
  }

  /** The wait after a watch that ended too soon with nothing delivered, or a watch-list cut short. */
  afterUnhealthyWatch(): number {
    return this.#backoff.next();
  }
}
