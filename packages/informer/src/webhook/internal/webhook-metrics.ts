// controller-runtime's webhook series (pkg/webhook/internal/metrics), so its dashboards work:
// the `webhook` label is the path served, `code` the HTTP status answered.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export class WebhookMetrics {
  readonly #total: Counter<'webhook' | 'code'>;
  readonly #latency: Histogram<'webhook'>;
  readonly #inFlight: Gauge<'webhook'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#total = new Counter({
      name: 'controller_runtime_webhook_requests_total',
      help: 'Total number of admission requests by HTTP status code.',
      labelNames: ['webhook', 'code'],
      registers,
    });
    this.#latency = new Histogram({
      name: 'controller_runtime_webhook_latency_seconds',
      help: 'Histogram of the latency of processing admission requests',
      labelNames: ['webhook'],
      registers,
    });
    this.#inFlight = new Gauge({
      name: 'controller_runtime_webhook_requests_in_flight',
      help: 'Current number of admission requests being served.',
      labelNames: ['webhook'],
      registers,
    });
  }

  /** Counts one request in flight; the returned function records its end with the status sent. */
  start(webhook: string): (code: number) => void {
    this.#inFlight.inc({ webhook });
    const end = this.#latency.startTimer({ webhook });
    return (code) => {
      end();
      this.#inFlight.dec({ webhook });
      this.#total.inc({ webhook, code: String(code) });
    };
  }
}
