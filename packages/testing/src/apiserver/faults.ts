// Request-level faults of the embedded server: failing the next N requests and added latency.
// Watch-level faults (closing watches, pausing events, expiring history) live with the watch hub
// and the store; this class holds only the per-request state the HTTP layer consults.

/** A failure to inject into upcoming requests. */
export interface InjectedFailure {
  readonly status: 500 | 429 | 503;
  readonly retryAfterSeconds: number | undefined;
}

/** Per-request fault state of one embedded server. */
export class RequestFaults {
  private failuresLeft = 0;
  private failure: InjectedFailure | undefined;
  /** Milliseconds added before every response. */
  latencyMs = 0;

  /** Fails the next `count` requests with `status`. */
  failNext(count: number, options: { status: 500 | 429 | 503; retryAfterSeconds?: number }): void {
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer, got ${count}`);
    this.failuresLeft = count;
    this.failure = { status: options.status, retryAfterSeconds: options.retryAfterSeconds };
  }

  /** The failure for this request, consuming one, or undefined to serve it normally. */
  take(): InjectedFailure | undefined {
    if (this.failuresLeft === 0 || this.failure === undefined) return undefined;
    this.failuresLeft--;
    return this.failure;
  }
}
