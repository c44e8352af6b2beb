import { SENT_AT_ANNOTATION, SEQ_ANNOTATION, wallClockMicros } from '../fixture/config-map-fixture.js';
import type { ReconciledObject } from './e2e-contender.js';

/**
 * Records, at the start of each reconcile, the time since the stream server wrote the event the
 * primary comes from; primaries without a stamp (the initial list) are only counted.
 */
export class LatencyRecorder {
  /** Reconciles of unstamped primaries (the initial sync's). */
  initial = 0;
  /** Latencies in µs, one per reconcile of a stamped primary, in order. */
  readonly latenciesUs: number[] = [];
  /** Wall-clock µs of the first and the last stamped reconcile. */
  firstAtUs = 0;
  lastAtUs = 0;
  /** Sequence number of the newest event a reconcile has seen. */
  lastSeenSeq = -1;
  readonly #lastSeq: number;
  readonly #waiters: { until: () => boolean; resolve: () => void }[] = [];

  /** `lastSeq`: sequence number of the paced stream's last event. */
  constructor(lastSeq: number) {
    this.#lastSeq = lastSeq;
  }

  /** Whether the reconcile of the last event started. */
  lastSeen = false;

  /** The reconcile callback handed to the contender. */
  readonly record = (object: ReconciledObject): void => {
    const now = wallClockMicros();
    const annotations = object.metadata?.annotations;
    const sentAt = annotations?.[SENT_AT_ANNOTATION];
    if (sentAt === undefined) {
      this.initial++;
    } else {
      if (this.latenciesUs.length === 0) this.firstAtUs = now;
      this.lastAtUs = now;
      this.latenciesUs.push(now - Number(sentAt));
      const seq = Number(annotations?.[SEQ_ANNOTATION]);
      if (seq > this.lastSeenSeq) this.lastSeenSeq = seq;
      if (seq === this.#lastSeq) this.lastSeen = true;
    }
    for (let i = this.#waiters.length - 1; i >= 0; i--) {
      if (this.#waiters[i]!.until()) this.#waiters.splice(i, 1)[0]!.resolve();
    }
  };

  /** Resolves once `until()` holds after a reconcile; rejects after `timeoutMs`. */
  when(until: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (until()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
      this.#waiters.push({ until, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }
}
