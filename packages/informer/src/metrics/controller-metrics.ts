import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ReconcileOutcome } from '@kindex/core';
import type { MeteredController } from './metered-controller.js';
import type { ReconcileSkipReason } from '../controller/controller-observability.js';
import { bindCounter, bindHistogram, type BoundCounter } from './bound-series.js';

/** controller-runtime's `result` label values. */
type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';
const RESULTS: readonly ReconcileResult[] = ['success', 'error', 'requeue', 'requeue_after'];

// controller-runtime's reconcile_time_seconds buckets (pkg/internal/controller/metrics).
const RECONCILE_TIME_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5,
  4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** Why a dispatch called no reconciler (the `reason` label of `kindex_reconcile_skipped_total`). */
const SKIP_REASONS: readonly ReconcileSkipReason[] = ['not-cached', 'not-owned', 'hidden', 'deleting'];

/**
 * The `controller_runtime_*` series of every observed controller, fed by its `events$` (one
 * `finished` processing event per reconcile attempt) and, for the worker gauges, read from its
 * event processor when scraped.
 *
 * As in controller-runtime, `controller_runtime_reconcile_total` and
 * `controller_runtime_reconcile_time_seconds` count calls of the reconciler (or of its cleanup)
 * only. A dispatch that calls none counts in `kindex_reconcile_skipped_total{controller,reason}`
 * instead, by reason: `not-cached` (the primary is not in the cache: deleted, or named by a
 * secondary but never created), `not-owned` (sharding: its shard belongs to another replica
 * now), `hidden` (the stealth filter hides it), `deleting` (marked for deletion with no
 * cleanup of ours left to run).
 *
 * Caveats: `controller_runtime_reconcile_panics_total` is not exported: JavaScript has no panics
 * distinct from errors, and a throwing reconciler already counts under `result="error"`.
 *
 * @example
 * ```ts
 * import { type Controller } from '@kindex/informer';
 * import { ControllerMetrics } from '@kindex/informer/internal';
 * import { Registry } from 'prom-client';
 * declare const controller: Controller;
 *
 * // controller_runtime_reconcile_total and friends for a controller run outside an Operator.
 * const registry = new Registry();
 * new ControllerMetrics(registry).observe(controller);
 * ```
 */
export class ControllerMetrics {
  readonly #controllers = new Map<string, MeteredController>();
  readonly #subscriptions = new Map<string, () => void>();
  readonly #total: Counter<'controller' | 'result'>;
  readonly #errors: Counter<'controller'>;
  readonly #terminalErrors: Counter<'controller'>;
  readonly #time: Histogram<'controller'>;
  readonly #skipped: Counter<'controller' | 'reason'>;

  constructor(registry: Registry) {
    const registers = [registry];
    const controllers = this.#controllers;
    this.#total = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.#errors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.#terminalErrors = new Counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.#time = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: RECONCILE_TIME_BUCKETS,
      registers,
    });
    this.#skipped = new Counter({
      name: 'kindex_reconcile_skipped_total',
      help: 'Total number of dispatches that called no reconciler per controller, by reason',
      labelNames: ['controller', 'reason'],
      registers,
    });
    new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
      collect() {
        this.reset();
        for (const [name, c] of controllers) this.set({ controller: name }, c.configuration.concurrency);
      },
    });
    new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
      collect() {
        this.reset();
        for (const [name, c] of controllers) this.set({ controller: name }, c.processor?.stats().processing ?? 0);
      },
    });
  }

  /** Starts recording a controller's reconciles. Call before it starts, so none is missed. */
  observe(controller: MeteredController): void {
    const name = controller.name;
    this.#subscriptions.get(name)?.();
    this.#controllers.set(name, controller);
    // The series are bound once per controller, so a reconcile does no label work (see
    // bound-series.ts). Made at zero, as controller-runtime initialises every series so that
    // rate() works from the start.
    const total = new Map(RESULTS.map((result) => [result, bindCounter(this.#total, { controller: name, result })] as const));
    const skippedFor = (reason: string): BoundCounter => this.#skipped.labels({ controller: name, reason });
    const skipped = new Map<string, BoundCounter>(
      SKIP_REASONS.map((reason) => [reason, bindCounter(this.#skipped, { controller: name, reason })]),
    );
    const errors = bindCounter(this.#errors, { controller: name });
    const terminalErrors = bindCounter(this.#terminalErrors, { controller: name });
    const time = bindHistogram(this.#time, { controller: name }, RECONCILE_TIME_BUCKETS);
    const remove = controller.onProcessingEvent((event) => {
      if (event.type !== 'finished') return;
      const { outcome, durationMs } = event;
      if (outcome.type === 'success' && outcome.skipped !== undefined) {
        (skipped.get(outcome.skipped) ?? skippedFor(outcome.skipped)).inc();
        return;
      }
      total.get(resultOf(outcome))?.inc();
      if (outcome.type === 'error') {
        errors.inc();
        if (outcome.terminal) terminalErrors.inc();
      }
      time.observe(durationMs / 1000);
    });
    this.#subscriptions.set(name, remove);
  }
}

function resultOf(outcome: ReconcileOutcome): ReconcileResult {
  if (outcome.type === 'error') return 'error';
  if (outcome.rescheduleAfterMs === undefined) return 'success';
  return outcome.rescheduleAfterMs > 0 ? 'requeue_after' : 'requeue';
}
