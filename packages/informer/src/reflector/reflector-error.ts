/**
 * An API request answered with an error status. Carries the Kubernetes `Status` reason and, for
 * 429, the server's Retry-After.
 *
 * @example
 * ```ts
 * import { ApiRequestError, type Reflector } from '@kindex/informer';
 * declare const reflector: Reflector;
 *
 * reflector.errors$.subscribe((error) => {
 *   if (error instanceof ApiRequestError) console.warn(`${error.verb} ${error.request}: HTTP ${error.status} ${error.reason ?? ''}`);
 * });
 * ```
 */
export class ApiRequestError extends Error {
  override readonly name = 'ApiRequestError';

  constructor(
    /** The request, as `GET <path>?<query>`. */
    readonly request: string,
    /** HTTP status code, or the `code` of a watch ERROR event. */
    readonly status: number,
    /** The `reason` of the Kubernetes Status, for example `Expired` or `TooManyRequests`. */
    readonly reason: string | undefined,
    message: string,
    /** Seconds the server asked us to wait (Retry-After), when it did. */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${request}: ${status}${reason ? ` ${reason}` : ''}: ${message}`);
  }

  /** True for 410 Gone / Expired: the resourceVersion is too old and a relist is needed. */
  get expired(): boolean {
    return this.status === 410 || this.reason === 'Expired' || this.reason === 'Gone';
  }

  /**
   * True for 400, 401, 403 and 404: the request is wrong or not allowed, and asking again will
   * not change the answer until someone fixes the configuration, the credentials, the RBAC rules
   * or installs the CRD. Everything else (5xx, 429, timeouts) is worth retrying.
   */
  get nonTransient(): boolean {
    return NON_TRANSIENT_STATUSES.has(this.status);
  }

  /** The Kubernetes verb of the failed request: `watch` for a watch, `list` for a collection read, else `get`. */
  get verb(): 'list' | 'watch' | 'get' {
    const [path = '', query = ''] = this.request.replace(/^GET /, '').split('?');
    if (/(^|&)watch=(true|1)(&|$)/.test(query)) return 'watch';
    // A collection path ends with the plural (odd segment count after the group/version root).
    const segments = path.split('/').filter((s) => s !== '');
    const rest = segments[0] === 'api' ? segments.slice(2) : segments.slice(3);
    const inNamespace = rest[0] === 'namespaces' && rest.length >= 3;
    const tail = inNamespace ? rest.slice(2) : rest;
    return tail.length === 1 ? 'list' : 'get';
  }
}

const NON_TRANSIENT_STATUSES: ReadonlySet<number> = new Set([400, 401, 403, 404]);

/**
 * True when `error` is an API answer that retrying will not change (see {@link ApiRequestError.nonTransient}).
 *
 * @example
 * ```ts
 * import { isNonTransient, type Reflector } from '@kindex/informer';
 * declare const reflector: Reflector;
 *
 * // 401, 403, 404: retrying will not help; tell the user which permission is missing.
 * reflector.errors$.subscribe((error) => {
 *   if (isNonTransient(error)) console.error(`${error.verb} ${error.request} refused: ${error.status}`);
 * });
 * ```
 */
export function isNonTransient(error: unknown): error is ApiRequestError {
  return error instanceof ApiRequestError && error.nonTransient;
}

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
 * A request that received nothing for longer than the inactivity timeout (a half-open connection).
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

  constructor(
    readonly request: string,
    readonly timeoutMs: number,
  ) {
    super(`${request}: nothing received for ${timeoutMs} ms; reconnecting`);
  }
}

/**
 * A transform threw on an object; the object is kept untransformed so no event is lost.
 *
 * @example
 * ```ts
 * import { TransformError, type Reflector } from '@kindex/informer';
 * declare const reflector: Reflector;
 *
 * // The transform threw on one object: that object is skipped, the others still arrive.
 * reflector.errors$.subscribe((error) => error instanceof TransformError && console.error(`transform failed on ${error.objectKey}`, error.cause));
 * ```
 */
export class TransformError extends Error {
  override readonly name = 'TransformError';

  constructor(
    readonly objectKey: string,
    options: { cause: unknown },
  ) {
    super(`object ${objectKey}: transform failed, keeping the object untransformed`, options);
  }
}
