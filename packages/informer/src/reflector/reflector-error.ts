/**
 * An API request answered with an error status. Carries the Kubernetes `Status` reason and, for
 * 429, the server's Retry-After.
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
}

/** A watch line that could not be used (not JSON, or not a `{type, object}` event). */
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

/** A request that received nothing for longer than the inactivity timeout (a half-open connection). */
export class InactivityTimeoutError extends Error {
  override readonly name = 'InactivityTimeoutError';

  constructor(
    readonly request: string,
    readonly timeoutMs: number,
  ) {
    super(`${request}: nothing received for ${timeoutMs} ms; reconnecting`);
  }
}

/** A transform threw on an object; the object is kept untransformed so no event is lost. */
export class TransformError extends Error {
  override readonly name = 'TransformError';

  constructor(
    readonly objectKey: string,
    options: { cause: unknown },
  ) {
    super(`object ${objectKey}: transform failed, keeping the object untransformed`, options);
  }
}
