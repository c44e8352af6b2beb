/**
 * How long `start()` of an Operator or Controller may take, and how a caller ends it early.
 *
 * @module
 */
import { defineOptions, positiveMilliseconds } from '@kindex/core/internal';
import Type from 'typebox';

/**
 * Default cache sync timeout: 2 minutes, as controller-runtime's CacheSyncTimeout and JOSDK's.
 *
 * @example
 * ```ts
 * import { DEFAULT_CACHE_SYNC_TIMEOUT_MS, type Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * // Allow twice the default on a large cluster whose first list takes long.
 * await operator.start({ cacheSyncTimeoutMs: 2 * DEFAULT_CACHE_SYNC_TIMEOUT_MS });
 * ```
 */
export const DEFAULT_CACHE_SYNC_TIMEOUT_MS = 120_000;

/**
 * Options of `Operator.start` and `Controller.start`.
 *
 * @example
 * ```ts
 * import type { Operator, StartOptions } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * // Give up starting when the process is told to stop.
 * const shutdown = new AbortController();
 * process.once('SIGTERM', () => shutdown.abort());
 * const options: StartOptions = { signal: shutdown.signal, cacheSyncTimeoutMs: 300_000 };
 * await operator.start(options);
 * ```
 */
export interface StartOptions {
  /**
   * Aborting it makes `start()` reject with `StartAbortedError` and undoes the start (caches
   * stopped). Defaults to none.
   */
  readonly signal?: AbortSignal;
  /**
   * How long caches may keep failing transiently (5xx, 429, timeouts) or stay silent before
   * `start()` rejects with `CacheSyncTimeoutError` naming what has not synced. Non-transient
   * failures (400/401/403/404) reject at once with `CacheSyncError` whatever this says.
   * Defaults to {@link DEFAULT_CACHE_SYNC_TIMEOUT_MS}.
   */
  readonly cacheSyncTimeoutMs?: number;
}

/** {@link StartOptions}' keys; `cacheSyncTimeoutMs` is checked by {@link validateCacheSyncTimeout}. */
export const START_OPTIONS = defineOptions<StartOptions>('start options', {
  signal: Type.Optional(Type.Unknown()),
  cacheSyncTimeoutMs: Type.Optional(Type.Unknown()),
});

/** {@link StartOptions}' keys, for the `start()` methods that check them. */
export const START_OPTION_KEYS = START_OPTIONS.keys;

/** Checks a timeout option where it is written, naming the option. */
export function validateCacheSyncTimeout(value: unknown, where: string): number | undefined {
  return positiveMilliseconds(value, `${where}: cacheSyncTimeoutMs`);
}
