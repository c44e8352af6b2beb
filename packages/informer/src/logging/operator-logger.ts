/**
 * Logging: structured JSON lines through pino, the Node standard.
 *
 * The Operator takes a pino logger (or any logger of core's `Logger` shape) or a level name
 * ({@link createOperatorLogger}); each controller logs through a child carrying `controller` and
 * `kind`, and each reconcile through a further child carrying `namespace`, `name` and
 * `reconcileID`, which the reconciler also gets from `context.getLogger()`. One line per
 * reconcile names its causes ({@link causesForLog}): which sources, which objects, which event
 * types, how many triggers coalesced. Levels: `debug` for each finished reconcile, `error` for
 * a failed one, `warn` for problems a controller moves past, `info` for start and stop.
 *
 * @module
 */
import { pino, type LevelWithSilent } from 'pino';
import { type Logger } from '@kindex/core';
import { noopLogger } from '@kindex/core/internal';

/**
 * What the Operator accepts as `logger`: a logger, or a level for a pino logger to stdout.
 *
 * @example
 * ```ts
 * import { Operator, type OperatorLoggerOption } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * // A level name, or your own pino logger.
 * const logger: OperatorLoggerOption = process.env['DEBUG'] ? 'debug' : 'info';
 * const operator = new Operator({ kubeConfig, logger });
 * ```
 */
export type OperatorLoggerOption = Logger | LevelWithSilent;

const LEVELS: readonly string[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * The operator's logger: `option` itself when it is a logger, a pino logger writing JSON lines
 * to stdout at that level when it is a level name, and a logger writing nothing when it is
 * undefined (an operator embedded in another program stays quiet unless told).
 *
 * @throws {TypeError} for anything else, naming the accepted values.
 *
 * @example
 * ```ts
 * import { createOperatorLogger } from '@kindex/informer/internal';
 *
 * // The same JSON logger the Operator uses, for code that runs beside it.
 * const log = createOperatorLogger('info').child({ component: 'webhook' });
 * log.info({ port: 9443 }, 'listening');
 * ```
 */
export function createOperatorLogger(option: OperatorLoggerOption | undefined): Logger {
  if (option === undefined) return noopLogger;
  if (typeof option === 'string') {
    if (!LEVELS.includes(option)) {
      throw new TypeError(
        `Operator option logger: unknown level ${JSON.stringify(option)}; use one of ${LEVELS.join(', ')}, or pass a pino logger`,
      );
    }
    return pino({ level: option, base: { pid: process.pid } });
  }
  if (typeof option !== 'object' || option === null || typeof option.child !== 'function' || typeof option.info !== 'function') {
    throw new TypeError('Operator option logger: expected a pino logger (with child, info, ...) or a level name such as "info"');
  }
  return option;
}
