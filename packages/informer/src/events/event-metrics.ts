import { Counter, type Registry } from 'prom-client';

/**
 * Why an Event occurrence did not reach the API server (`kindex_events_dropped_total{reason}`):
 * the per-object rate limit, a full write queue, a write the server refused or failed, or a
 * recorder already stopped.
 *
 * @example
 * ```ts
 * import type { EventDropReason } from '@kindex/informer';
 *
 * const reason: EventDropReason = 'write_failed';
 * ```
 */
export type EventDropReason = 'rate_limited' | 'queue_full' | 'write_failed' | 'stopped';

/**
 * The event recorder's series: `kindex_events_written_total{controller,type}` counts occurrences
 * the API server holds (a create carries one, a series patch the repeats it adds), and
 * `kindex_events_dropped_total{controller,reason}` the occurrences lost. Written plus dropped is
 * every occurrence recorded, so a broken recorder shows as a rising drop count, not as silence.
 *
 * @example
 * ```ts
 * import { EventMetrics } from '@kindex/informer';
 * import { Registry } from 'prom-client';
 *
 * const metrics = new EventMetrics(new Registry());
 * metrics.written('webpages', 'Warning', 1);
 * ```
 */
export class EventMetrics {
  readonly #written: Counter<'controller' | 'type'>;
  readonly #dropped: Counter<'controller' | 'reason'>;

  constructor(registry: Registry) {
    this.#written = new Counter({
      name: 'kindex_events_written_total',
      help: 'Kubernetes Event occurrences written to the API server (a series patch counts the repeats it adds), by controller and type.',
      labelNames: ['controller', 'type'],
      registers: [registry],
    });
    this.#dropped = new Counter({
      name: 'kindex_events_dropped_total',
      help: 'Kubernetes Event occurrences dropped (rate_limited, queue_full, write_failed, stopped), by controller and reason.',
      labelNames: ['controller', 'reason'],
      registers: [registry],
    });
  }

  /** Counts occurrences the API server now holds. */
  written(controller: string, type: string, count: number): void {
    if (count > 0) this.#written.inc({ controller, type }, count);
  }

  /** Counts occurrences lost. */
  dropped(controller: string, reason: EventDropReason, count: number): void {
    if (count > 0) this.#dropped.inc({ controller, reason }, count);
  }
}
