/**
 * Errors of reading an answer the server did send with a 2xx status: a watch frame the codec
 * could not use, and a connection that went silent.
 *
 * @module
 */

/**
 * A watch line that could not be used (not JSON, or not a `{type, object}` event).
 *
 * @example
 * ```ts
 * import { WatchLineError, type Reflector } from '@kindex/informer';
 * declare const reflector: Reflector;
 *
 * // A line of the watch stream that is not a watch event (a proxy error page, truncated JSON).
 * reflector.errors$.subscribe((error) => error instanceof WatchLineError && console.warn(`bad watch line: ${error.linePrefix}`));
 * ```
 */
export class WatchLineError extends Error {
  override readonly name = 'WatchLineError';
  readonly code = 'KINDEX_WATCH_LINE';

  constructor(
    /** The first characters of the line, for the log. */
    readonly linePrefix: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`watch line ${JSON.stringify(linePrefix)}: ${problem}`, options);
  }
}

/**
 * A request that received nothing for longer than the inactivity timeout (a half-open connection):
 * the reflector's lists and watches, which it then reopens, and `KubeClient`'s requests
 * (`requestInactivityMs`), which fail with it.
 *
 * @example
 * ```ts
 * import { InactivityTimeoutError, type Reflector } from '@kindex/informer';
 * declare const reflector: Reflector;
 *
 * // The watch went silent for too long (a dead connection behind a load balancer); it is reopened.
 * reflector.errors$.subscribe((error) => error instanceof InactivityTimeoutError && console.info(`${error.request} silent for ${error.timeoutMs} ms`));
 * ```
 */
export class InactivityTimeoutError extends Error {
  override readonly name = 'InactivityTimeoutError';
  readonly code = 'KINDEX_INACTIVITY_TIMEOUT';

  constructor(
    readonly request: string,
    readonly timeoutMs: number,
  ) {
    super(`${request}: nothing received for ${timeoutMs} ms; the connection was given up`);
  }
}
