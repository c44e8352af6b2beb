import { type EventSourceHealth } from '@kindex/core';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import type { Observable } from 'rxjs';
import type { InformerRegistry } from '../cache/informer-registry.js';
import type { DebuggableController } from './debuggable-controller.js';

/**
 * Options of {@link SourceHealthMonitor}.
 *
 * @example
 * ```ts
 * import { InformerRegistry, type Operator } from '@kindex/informer';
 * import { SourceHealthMonitor, type SourceHealthMonitorOptions } from '@kindex/informer/internal';
 * declare const operator: Operator;
 *
 * const options: SourceHealthMonitorOptions = { registry: InformerRegistry.of(operator.client), controllers: () => operator.controllers, unhealthyAfterMs: 60_000, sampleEveryMs: 5_000 };
 * const monitor = new SourceHealthMonitor(options);
 * ```
 */
export interface SourceHealthMonitorOptions {
  /** The shared informers to watch (the operator's client's registry). */
  readonly registry: InformerRegistry;
  /** The controllers whose event sources to watch. */
  readonly controllers: () => readonly Pick<DebuggableController, 'name' | 'eventSources'>[];
  /** How long a source may stay broken before liveness fails. */
  readonly unhealthyAfterMs: number;
  /** How often to sample while started. Defaults to a quarter of `unhealthyAfterMs`, at most 1 s. */
  readonly sampleEveryMs?: number;
}

/** {@link SourceHealthMonitorOptions}' keys and value checks; `unhealthyAfterMs` keeps the constructor's. */
const SOURCE_HEALTH_MONITOR_OPTIONS = defineOptions<SourceHealthMonitorOptions>('SourceHealthMonitor options', {
  registry: Type.Unknown(),
  controllers: Type.Function([], Type.Unknown(), { description: 'a function returning the controllers' }),
  unhealthyAfterMs: Type.Unknown(),
  sampleEveryMs: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'a positive number of milliseconds' })),
});

/**
 * Tells a source that stayed broken from one that is recovering: samples every shared
 * informer's reflector health (broken: its last request failed and no watch is open) and every
 * controller event source's `health$` (broken: `unhealthy`), remembers since when each has been
 * broken, and fails {@link check} once one stays broken past `unhealthyAfterMs`. A restart of
 * the process is then the remedy liveness asks the kubelet for.
 *
 * Caveats: "since" is as precise as the sampling (every second by default while started; at
 * each `check` otherwise).
 *
 * @example
 * ```ts
 * import { InformerRegistry, type Operator } from '@kindex/informer';
 * import { SourceHealthMonitor } from '@kindex/informer/internal';
 * declare const operator: Operator;
 *
 * // Fail liveness once a watch or event source has been broken for 5 minutes (the Operator does this with server.unhealthyAfterMs).
 * const monitor = new SourceHealthMonitor({ registry: InformerRegistry.of(operator.client), controllers: () => operator.controllers, unhealthyAfterMs: 300_000 });
 * monitor.start();
 * operator.health.addHealthzCheck('sources', () => monitor.check());
 * ```
 */
export class SourceHealthMonitor {
  readonly #options: SourceHealthMonitorOptions;
  readonly #brokenSince = new Map<string, { since: number; reason: string }>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: SourceHealthMonitorOptions) {
    SOURCE_HEALTH_MONITOR_OPTIONS.check(options);
    if (!(options.unhealthyAfterMs >= 0)) {
      throw new RangeError(`unhealthyAfterMs must be a number of milliseconds >= 0, got ${String(options.unhealthyAfterMs)}`);
    }
    this.#options = options;
  }

  /** Samples periodically until {@link stop}. */
  start(): void {
    if (this.#timer !== undefined) return;
    const every = this.#options.sampleEveryMs ?? Math.max(10, Math.min(1000, this.#options.unhealthyAfterMs / 4));
    this.#timer = setInterval(() => this.sample(), every);
    // A probe monitor must never keep a process alive that is otherwise done.
    this.#timer.unref();
    this.sample();
  }

  /** Stops sampling; {@link check} still answers from the last sample and samples again when called. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Records which sources are broken now. */
  sample(now = Date.now()): void {
    const broken = new Map<string, string>();
    for (const informer of this.#options.registry.informers()) {
      const h = informer.reflector.health;
      if (h.lastError !== undefined && !h.watching) {
        const { type, namespace } = informer.spec;
        broken.set(
          `informer ${type.group ? `${type.plural}.${type.group}` : type.plural}${namespace ? ` in namespace ${namespace}` : ''}`,
          h.lastError.message,
        );
      }
    }
    for (const controller of this.#options.controllers()) {
      for (const source of controller.eventSources) {
        const h = current(source.health$);
        if (h?.status === 'unhealthy') broken.set(`controller ${controller.name} event source ${source.name}`, errorMessage(h.error));
      }
    }
    for (const name of this.#brokenSince.keys()) if (!broken.has(name)) this.#brokenSince.delete(name);
    for (const [name, reason] of broken) {
      const entry = this.#brokenSince.get(name);
      if (entry === undefined) this.#brokenSince.set(name, { since: now, reason });
      else entry.reason = reason;
    }
  }

  /** The sources broken now, with since when (epoch ms) and the last error. */
  broken(): { readonly source: string; readonly since: number; readonly reason: string }[] {
    return [...this.#brokenSince].map(([source, { since, reason }]) => ({ source, since, reason }));
  }

  /**
   * Samples, then throws when a source has stayed broken longer than `unhealthyAfterMs`, naming
   * each such source, for how long, and its last error.
   */
  check(now = Date.now()): void {
    this.sample(now);
    const limit = this.#options.unhealthyAfterMs;
    const stale = this.broken().filter((b) => now - b.since > limit);
    if (stale.length === 0) return;
    const parts = stale.map((b) => `${b.source} broken for ${Math.round((now - b.since) / 1000)}s (limit ${limit / 1000}s): ${b.reason}`);
    throw new Error(parts.join('; '));
  }
}

/** The value a replaying observable (a BehaviorSubject's) holds now, read synchronously. */
function current(health$: Observable<EventSourceHealth>): EventSourceHealth | undefined {
  let value: EventSourceHealth | undefined;
  health$.subscribe((h) => (value = h)).unsubscribe();
  return value;
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return error === undefined ? 'unhealthy' : String(error);
}
