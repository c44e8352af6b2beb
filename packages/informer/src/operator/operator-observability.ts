import { hostname } from 'node:os';
import type { KubernetesObject, Logger } from '@kindex/core';
import type { OptionKeysOf } from '@kindex/core/internal';
import type { InformerRegistry } from '../cache/informer-registry.js';
import { KubeClient } from '../client/kube-client.js';
import { EVENT_RECORDER_OPTIONS, EventBroadcaster, type EventRecorderOptions } from '../events/event-broadcaster.js';
import { createOperatorLogger, type OperatorLoggerOption } from '../logging/operator-logger.js';
import { errorLogFields } from '../logging/user-error.js';
import { OPERATOR_METRICS_OPTIONS, OperatorMetrics, type OperatorMetricsOptions } from '../metrics/operator-metrics.js';
import { HealthChecks } from '../server/health-checks.js';
import { OPERATOR_SERVER_OPTION_KEYS, OperatorServer, type OperatorServerOptions } from '../server/operator-server.js';
import { SourceHealthMonitor } from '../server/source-health-monitor.js';
import type { DebuggableFleet } from '../server/debuggable-controller.js';
import type { Controller } from '../controller/controller.js';
import type { ControllerObservability } from '../controller/controller-observability.js';
import { resolveInspection } from '../controller/controller-options.js';

/**
 * The Operator's options for logs, metrics, health and its HTTP server.
 *
 * @example
 * ```ts
 * import { Operator, type OperatorObservabilityOptions } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const observability: OperatorObservabilityOptions = { logger: 'debug', server: { port: 8080, debug: true } };
 * const operator = new Operator({ kubeConfig, ...observability });
 * ```
 */
export interface OperatorObservabilityOptions {
  /**
   * Where logs go: a pino logger (or any logger of core's `Logger` shape), or a level name for
   * JSON lines to stdout. Defaults to no logging.
   */
  readonly logger?: OperatorLoggerOption;
  /** The metrics registry and whether to add process metrics. Defaults to a registry of its own. */
  readonly metrics?: OperatorMetricsOptions;
  /** Serve `/metrics`, `/healthz`, `/readyz` (and `/debug/controllers`). Defaults to no server. */
  readonly server?: OperatorServerOptions;
  /** How `context.getEventRecorder()` writes Kubernetes Events. Defaults to {@link EventRecorderOptions}' defaults. */
  readonly events?: EventRecorderOptions;
  /**
   * Keep, per controller, what `describePrimary` and `/debug/controllers/<name>/primaries/...`
   * show: each primary's pending causes and last reconcile (see `ControllerOptions.inspection`,
   * which overrides it per controller). Off, they answer with a hint instead, reconciles leave
   * nothing behind, and `reconcile failed` lines give the trigger count rather than the causes
   * (debug lines keep listing them). Defaults to `KINDEX_INSPECTION` in the environment (`true`
   * or `false`), else false; `@kindex/testing`'s `startTestApiServer()` sets it to true.
   */
  readonly inspection?: boolean;
}

/** The keys of {@link OperatorObservabilityOptions}: unknown ones are rejected, not ignored. */
export const OPERATOR_OBSERVABILITY_OPTION_KEYS = {
  logger: true,
  metrics: OPERATOR_METRICS_OPTIONS.keys,
  server: OPERATOR_SERVER_OPTION_KEYS,
  events: EVENT_RECORDER_OPTIONS.keys,
  inspection: true,
} as const satisfies OptionKeysOf<OperatorObservabilityOptions>;

type Phase = 'new' | 'starting' | 'running' | 'stopped';

/**
 * The observability parts of one Operator, wired together: the logger, the metrics registry,
 * the health checks (`ping`, `informers` for liveness; `controllers` for readiness), the source
 * health monitor and the HTTP server. The Operator calls its hooks around start and stop.
 */
export class OperatorObservability {
  readonly logger: Logger;
  readonly metrics: OperatorMetrics;
  readonly health = new HealthChecks();
  readonly server: OperatorServer | undefined;
  readonly #monitor: SourceHealthMonitor;
  readonly #controllers: () => readonly Controller<KubernetesObject>[];
  /** Writes reconcilers' Events; undefined when the operator gave no client (tests of parts). */
  readonly events: EventBroadcaster | undefined;
  #phase: Phase = 'new';
  readonly #inspection: boolean;

  constructor(
    options: OperatorObservabilityOptions,
    registry: InformerRegistry,
    // Read at each use: controllers and fleets registered later show up.
    registered: { readonly controllers: readonly Controller<KubernetesObject>[]; readonly fleets: readonly DebuggableFleet[] },
    events?: { readonly client: KubeClient; readonly identity: () => string | undefined },
  ) {
    const controllers = (): readonly Controller<KubernetesObject>[] => registered.controllers;
    const fleets = (): readonly DebuggableFleet[] => registered.fleets;
    this.logger = createOperatorLogger(options.logger);
    this.#inspection = resolveInspection(options.inspection, 'Operator');
    this.metrics = new OperatorMetrics(options.metrics);
    this.events =
      events === undefined
        ? undefined
        : new EventBroadcaster(events.client, this.metrics.events, {
            ...options.events,
            logger: this.logger.child({ component: 'event-recorder' }),
            defaultInstance: () => events.identity() ?? (process.env['POD_NAME'] || hostname()),
          });
    this.metrics.observeInformers(registry);
    this.#controllers = controllers;
    // The server first: it validates the server options with messages naming them.
    this.server =
      options.server === undefined
        ? undefined
        : new OperatorServer(options.server, {
            metrics: this.metrics,
            health: this.health,
            controllers,
            // Listed on /debug/controllers only: a member cluster's trouble stays out of the probes.
            fleets,
            // Reviews for the secure server go out without the leader fence: followers answer scrapes too.
            ...(events === undefined ? {} : { client: new KubeClient(events.client.kubeConfig) }),
            logger: this.logger.child({ component: 'operator-server' }),
          });
    this.#monitor = new SourceHealthMonitor({ registry, controllers, unhealthyAfterMs: options.server?.unhealthyAfterMs ?? 60_000 });
    this.health.addHealthzCheck('ping', () => {});
    this.health.addHealthzCheck('informers', () => this.#monitor.check());
    this.health.addReadyzCheck('controllers', () => this.#checkReady());
  }

  /** What each controller gets at registration. */
  forController(): ControllerObservability {
    return {
      logger: this.logger,
      queueMetrics: this.metrics.workQueues,
      inspection: this.#inspection,
      ...(this.events ? { events: this.events } : {}),
    };
  }

  /** A controller was registered: record its reconciles, log the problems it moves past. */
  registered(controller: Controller<KubernetesObject>): void {
    this.metrics.observeController(controller);
    const log = this.logger.child({ controller: controller.name, kind: controller.kind.kind });
    controller.onProblem((source, error) =>
      log.warn({ source, ...errorLogFields(log, error) }, 'event source problem (skipped, going on)'),
    );
    controller.onProcessingEvent((event) => {
      if (event.type === 'retries-exhausted') {
        const { key, retryInfo, terminal } = event;
        log.error(
          { primary: key, attempts: retryInfo.attemptCount, terminal },
          terminal ? 'terminal error, not retrying' : 'retries exhausted',
        );
      } else if (event.type === 'timed-out') {
        log.warn({ primary: event.key, timeoutMs: event.timeoutMs }, 'reconcile timed out; its worker moved on');
      }
    });
  }

  /** Before the controllers start: serve probes at once, so they answer "not ready" while caches sync. */
  async starting(): Promise<void> {
    this.#phase = 'starting';
    await this.server?.listen();
    if (this.server !== undefined) this.#monitor.start();
    this.logger.info({ controllers: this.#controllers().map((c) => c.name), server: this.server?.address }, 'operator starting');
  }

  /** Every controller started and synced. */
  started(): void {
    this.#phase = 'running';
    this.logger.info('operator running');
  }

  /** Every controller and informer stopped. */
  async stopped(): Promise<void> {
    this.#phase = 'stopped';
    this.#monitor.stop();
    for (const c of this.#controllers()) this.metrics.workQueues.forget(c.name);
    await this.server?.close();
    this.logger.info('operator stopped');
  }

  #checkReady(): void {
    if (this.#phase === 'new') throw new Error('the operator has not been started');
    if (this.#phase === 'stopped') throw new Error('the operator has stopped');
    const waiting: string[] = [];
    for (const c of this.#controllers()) {
      if (!c.primaryCache.hasSynced()) waiting.push(`controller ${c.name}: primary cache`);
      for (const s of c.eventSources) {
        if (s.hasSynced?.() === false) waiting.push(`controller ${c.name}: event source ${s.name}`);
      }
    }
    if (this.#phase === 'starting') throw new Error(`caches syncing${waiting.length ? `: ${waiting.join(', ')} not synced` : ''}`);
    if (waiting.length > 0) throw new Error(`caches not synced: ${waiting.join(', ')}`);
  }
}
