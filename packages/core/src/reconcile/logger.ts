/**
 * The logger a reconcile writes to, as `Context.getLogger()` hands it out.
 *
 * Core defines only the shape it needs so that it never depends on a logging library; a pino
 * `Logger` fits it as is (`@kindex/informer` passes pino child loggers), and so does anything
 * with pino's call forms: `log.info('message')` and `log.info({ field: 1 }, 'message')`.
 */

/**
 * One log level's method: a message, or structured fields and an optional message.
 *
 * @example
 * ```ts
 * import type { Context, LogFn } from '@kindex/core';
 * declare const context: Context;
 *
 * const info: LogFn = context.getLogger().info;
 * info('plain message');
 * info({ replicas: 3 }, 'message with fields');
 * ```
 */
export interface LogFn {
  (message: string): void;
  (fields: object, message?: string): void;
}

/**
 * A structured logger with levels and child loggers (the subset of pino kindex uses).
 *
 * @example
 * ```ts
 * import { UpdateControl, type Context, type KubernetesObject } from '@kindex/core';
 * type Job = KubernetesObject & { spec: { clusterName: string } };
 *
 * function reconcile(job: Job, context: Context<Job>): UpdateControl<Job> {
 *   const log = context.getLogger(); // carries controller, kind, namespace, name, reconcileID
 *   log.info({ cluster: job.spec.clusterName }, 'resolving cluster');
 *   return UpdateControl.noUpdate();
 * }
 * ```
 */
export interface Logger {
  trace: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  fatal: LogFn;
  /** A logger that adds `bindings` to every line it writes. */
  child(bindings: Record<string, unknown>): Logger;
  /**
   * Whether a line at `level` would be written (pino's method): callers skip building the fields
   * of lines nobody reads. Absent means every level may be.
   */
  isLevelEnabled?(level: string): boolean;
}

const ignore: LogFn = () => {};

/**
 * A logger that writes nothing: the default where no logger is configured.
 *
 * @example
 * ```ts
 * import { type KubernetesObject, type PrimaryCacheReader } from '@kindex/core';
 * import { DefaultContext, noopLogger } from '@kindex/core/internal';
 * declare const primary: KubernetesObject;
 * declare const primaryCache: PrimaryCacheReader;
 *
 * // Keep test output quiet.
 * const context = new DefaultContext({ primary, eventSources: [], primaryCache, client: undefined, logger: noopLogger });
 * ```
 */
export const noopLogger: Logger = Object.freeze({
  trace: ignore,
  debug: ignore,
  info: ignore,
  warn: ignore,
  error: ignore,
  fatal: ignore,
  child: () => noopLogger,
  isLevelEnabled: () => false,
});
