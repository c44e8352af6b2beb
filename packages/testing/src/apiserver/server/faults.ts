// Request-level faults of the embedded server: failing the next N requests and added latency.
// Watch-level faults (closing watches, pausing events, expiring history) live with the watch hub
// and the store; this class holds only the per-request state the HTTP layer consults.

import type { ForbidRule } from '../../test-api-server.js';

/** A failure to inject into upcoming requests. */
export interface InjectedFailure {
  readonly status: 500 | 429 | 503;
  readonly retryAfterSeconds: number | undefined;
}

/** Per-request fault state of one embedded server. */
export class RequestFaults {
  private readonly forbidden = new Set<ForbidRule>();
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

  /** Refuses requests matching `rule` until the returned function is called. */
  forbid(rule: ForbidRule): () => void {
    if (typeof rule?.resource !== 'string' || rule.resource === '')
      throw new TypeError('forbid: rule.resource must be a plural resource name');
    const held = { ...rule };
    this.forbidden.add(held);
    return () => void this.forbidden.delete(held);
  }

  /** The rule refusing this request, if any. A request across all namespaces matches any namespace rule. */
  refusal(request: { group: string; resource: string; namespace: string | undefined; verb: string }): ForbidRule | undefined {
    for (const rule of this.forbidden) {
      if (rule.resource !== request.resource) continue;
      if (rule.group !== undefined && rule.group !== request.group) continue;
      if (rule.namespace !== undefined && request.namespace !== undefined && rule.namespace !== request.namespace) continue;
      if (rule.verbs !== undefined && !rule.verbs.includes(request.verb)) continue;
      return rule;
    }
    return undefined;
  }

  /** The failure for this request, consuming one, or undefined to serve it normally. */
  take(): InjectedFailure | undefined {
    if (this.failuresLeft === 0 || this.failure === undefined) return undefined;
    this.failuresLeft--;
    return this.failure;
  }
}
