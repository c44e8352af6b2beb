import { GenericRetry } from '../queue/generic-retry.js';
import { defaultControllerRateLimiter } from '../queue/default-controller-rate-limiter.js';
import type { RateLimiter } from '../queue/rate-limiter.js';
import type { Retry } from '../queue/retry.js';
import type { QueueKind } from './reconcile-queue.js';
import { InvalidOptionError } from '../options/invalid-option-error.js';

/**
 * How the event processor schedules reconciles: the part of the configuration core uses.
 *
 * @example
 * ```ts
 * import { EventProcessor, type ProcessingConfiguration } from '@kindex/core';
 * declare const processing: ProcessingConfiguration;
 *
 * const processor = new EventProcessor({ ...processing, dispatch: async () => {} });
 * ```
 */
export interface ProcessingConfiguration {
  /** Reconciles running at once (of different primaries). Defaults to 10. */
  readonly concurrency: number;
  /**
   * Whether and when a failed reconcile runs again, per primary. Defaults to
   * `new GenericRetry()`: 5 retries, 2 s then x1.5.
   */
  readonly retry: Retry;
  /**
   * Overall limit on retries (each retry waits the longer of the retry delay and this
   * limiter's wait). Stateful: give each controller its own. Defaults to
   * {@link defaultControllerRateLimiter} (per primary 5 ms doubling to 1000 s, overall 10/s
   * burst 100).
   */
  readonly rateLimiter: RateLimiter;
  /**
   * Reconcile each primary at least this often even without events, as a safety net for
   * missed events; `undefined` turns it off. Defaults to 36,000,000 (10 hours, as JOSDK).
   */
  readonly maxReconciliationIntervalMs: number | undefined;
  /**
   * Time after which a reconcile counts as hung: its worker moves on to other primaries and
   * the attempt counts as failed (`ReconcileTimeoutError`); the primary itself waits until the
   * hung call settles. `undefined` waits forever. Defaults to 300,000 (5 minutes).
   */
  readonly reconcileTimeoutMs: number | undefined;
  /**
   * The work queue: `'priority'` hands out the highest priority first (controller-runtime's
   * priority queue): events of the initial list, of relists and of the max-interval reschedule
   * come at `LOW_PRIORITY`, so that after a restart over many primaries the ones that really
   * changed are reconciled before the unchanged ones; `UpdateControl.rescheduleAfter(ms, {
   * priority })` sets a requeue's priority. `'fifo'` reconciles in arrival order; a function
   * builds a queue of your own. Defaults to `'fifo'`: the order every existing controller was
   * written and tested against, and the cheaper queue (O(1) against O(log n) per item) when
   * restarts are small.
   */
  readonly queue: QueueKind;
}

/**
 * Everything a controller is configured with. The Kubernetes layer reads the selection fields
 * (type, namespaces, selector, finalizer, generation awareness); core's event processor reads
 * the {@link ProcessingConfiguration} part.
 *
 * @example
 * ```ts
 * import type { ControllerConfiguration, EventSourceContext } from '@kindex/core';
 * declare const context: EventSourceContext;
 *
 * const configuration: ControllerConfiguration = context.configuration;
 * const watchesAll = configuration.namespaces === 'all';
 * ```
 */
export interface ControllerConfiguration extends ProcessingConfiguration {
  /** Unique name of the controller, used in logs, events and errors. */
  readonly name: string;
  /** The primary resource type, `group/version/Kind` (`v1/Kind` for the core group). */
  readonly primaryType: string;
  /** Namespaces whose primaries are reconciled: `'all'` or a list. Defaults to `'all'`. */
  readonly namespaces: 'all' | readonly string[];
  /** Label selector narrowing the primaries (`app=x,tier in (a,b)`). Defaults to undefined (all). */
  readonly labelSelector: string | undefined;
  /**
   * Finalizer the controller adds to primaries so `cleanup` runs before deletion; only used
   * when the reconciler has `cleanup`. Defaults to undefined: the Kubernetes layer then uses
   * `<plural>.<group>/finalizer`, as JOSDK.
   */
  readonly finalizerName: string | undefined;
  /**
   * Skip updates of the primary that leave `metadata.generation` unchanged (status-only
   * writes, including the controller's own). Defaults to true.
   */
  readonly generationAware: boolean;
}

/**
 * Options of {@link controllerConfiguration}: the name and primary type, the rest optional.
 *
 * @example
 * ```ts
 * import { controllerConfiguration, type ControllerConfigurationOptions } from '@kindex/core';
 *
 * const options: ControllerConfigurationOptions = {
 *   name: 'webapps',
 *   primaryType: 'example.com/v1/WebApp',
 *   namespaces: ['shop', 'blog'],
 *   finalizerName: 'example.com/cleanup',
 *   maxReconciliationIntervalMs: 10 * 60_000,
 * };
 * const configuration = controllerConfiguration(options);
 * ```
 */
export type ControllerConfigurationOptions = Pick<ControllerConfiguration, 'name' | 'primaryType'> &
  Partial<Omit<ControllerConfiguration, 'name' | 'primaryType'>>;

/**
 * A controller configuration value that cannot work, naming the controller and the field. A kind
 * of {@link InvalidOptionError} (code `KINDEX_INVALID_OPTION`), as every bad option is.
 *
 * @example
 * ```ts
 * import { controllerConfiguration, InvalidConfigurationError } from '@kindex/core';
 *
 * try {
 *   controllerConfiguration({ name: 'webapps', primaryType: 'example.com/v1/WebApp', concurrency: 0 });
 * } catch (error) {
 *   if (error instanceof InvalidConfigurationError) console.error(`${error.controller}: ${error.field}: ${error.message}`);
 * }
 * ```
 */
export class InvalidConfigurationError extends InvalidOptionError {
  override readonly name: string = 'InvalidConfigurationError';
  /** Name of the controller. */
  readonly controller: string;
  /** The offending option, for example `concurrency`. */
  readonly field: string;

  constructor(controller: string, field: string, problem: string, value?: unknown) {
    super(
      { options: `controller ${controller}`, key: field, value, problem, fix: problem },
      `controller ${controller}: ${field}: ${problem}`,
    );
    this.controller = controller;
    this.field = field;
  }
}

/**
 * Fills in the defaults of a controller configuration and checks it.
 * @throws {InvalidConfigurationError} for a value that cannot work.
 *
 * @example
 * ```ts
 * import { controllerConfiguration } from '@kindex/core';
 *
 * // Checked at once: a bad value throws an InvalidConfigurationError naming the field.
 * const configuration = controllerConfiguration({ name: 'webapps', primaryType: 'example.com/v1/WebApp', concurrency: 4 });
 * ```
 */
export function controllerConfiguration(options: ControllerConfigurationOptions): ControllerConfiguration {
  const name = options.name;
  if (typeof name !== 'string' || name === '') throw new InvalidConfigurationError(String(name), 'name', 'must be a non-empty string');
  const config: ControllerConfiguration = {
    name,
    primaryType: options.primaryType,
    namespaces: options.namespaces === undefined || options.namespaces === 'all' ? 'all' : Object.freeze([...options.namespaces]),
    labelSelector: options.labelSelector,
    finalizerName: options.finalizerName,
    generationAware: options.generationAware ?? true,
    ...processingConfiguration(options, name),
  };
  if (typeof config.primaryType !== 'string' || config.primaryType === '') {
    throw new InvalidConfigurationError(name, 'primaryType', 'must be a non-empty string such as example.com/v1/Job');
  }
  if (config.namespaces !== 'all' && config.namespaces.some((ns) => typeof ns !== 'string' || ns === '')) {
    throw new InvalidConfigurationError(name, 'namespaces', "must be 'all' or a list of non-empty names");
  }
  return Object.freeze(config);
}

/**
 * Fills in the defaults of the processing part of a configuration and checks it.
 * @throws {InvalidConfigurationError} for a value that cannot work.
 *
 * @example
 * ```ts
 * import { GenericRetry } from '@kindex/core';
 * import { processingConfiguration } from '@kindex/core/internal';
 *
 * const processing = processingConfiguration({ concurrency: 2, retry: new GenericRetry({ maxAttempts: 3 }), reconcileTimeoutMs: 30_000 }, 'webapps');
 * ```
 */
export function processingConfiguration(options: Partial<ProcessingConfiguration>, controller = 'unnamed'): ProcessingConfiguration {
  const config: ProcessingConfiguration = {
    concurrency: options.concurrency ?? 10,
    retry: options.retry ?? new GenericRetry(),
    rateLimiter: options.rateLimiter ?? defaultControllerRateLimiter(),
    maxReconciliationIntervalMs: 'maxReconciliationIntervalMs' in options ? options.maxReconciliationIntervalMs : 36_000_000,
    reconcileTimeoutMs: 'reconcileTimeoutMs' in options ? options.reconcileTimeoutMs : 300_000,
    queue: options.queue ?? 'fifo',
  };
  // Typed away, still possible from JavaScript or a typo in a config file.
  const queue: unknown = config.queue;
  if (queue !== 'fifo' && queue !== 'priority' && typeof queue !== 'function') {
    const got = typeof queue === 'string' ? `'${queue}'` : String(queue);
    throw new InvalidConfigurationError(
      controller,
      'queue',
      `must be 'fifo', 'priority' or a function building a ReconcileQueue, got ${got}`,
    );
  }
  if (!Number.isInteger(config.concurrency) || config.concurrency < 1) {
    throw new InvalidConfigurationError(controller, 'concurrency', `must be an integer >= 1, got ${config.concurrency}`);
  }
  for (const field of ['maxReconciliationIntervalMs', 'reconcileTimeoutMs'] as const) {
    const v = config[field];
    if (v !== undefined && !(typeof v === 'number' && v > 0)) {
      throw new InvalidConfigurationError(controller, field, `must be a number > 0 or undefined, got ${String(v)}`);
    }
  }
  return config;
}
