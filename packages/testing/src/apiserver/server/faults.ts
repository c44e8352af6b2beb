// Request-level faults of the embedded server: failing the next N requests and added latency.
// Watch-level faults (closing watches, pausing events, expiring history) live with the watch hub
// and the store; this class holds only the per-request state the HTTP layer consults.

import type { ForbidRule } from '../../test-api-server.js';
import type { Route } from '../filters/router.js';
import { ApiStatusError } from '../storage/status-error.js';

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

/** The error an injected failure answers with; a 429 also sets `Retry-After` through `setHeader`. */
export function injectedFailureError(failure: InjectedFailure, setHeader: (name: string, value: string) => void): ApiStatusError {
  if (failure.status === 429) {
    const after = failure.retryAfterSeconds ?? 1;
    setHeader('Retry-After', String(after));
    return new ApiStatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: after });
  }
  if (failure.status === 503) return new ApiStatusError(503, 'ServiceUnavailable', 'the server is currently unable to handle the request');
  return new ApiStatusError(500, 'InternalError', 'Internal error occurred: injected fault');
}

/** Answers 403 as kube-apiserver's RBAC does for a request a `forbid` fault covers. */
export function checkForbidden(faults: RequestFaults, r: Extract<Route, { kind: 'resource' }>, url: URL, method: string): void {
  const resource = r.subresource === undefined ? r.resource : `${r.resource}/${r.subresource}`;
  const watch = url.searchParams.get('watch');
  const verb =
    method === 'GET'
      ? watch === 'true' || watch === '1'
        ? 'watch'
        : r.name === undefined
          ? 'list'
          : 'get'
      : method === 'POST'
        ? 'create'
        : method === 'PUT'
          ? 'update'
          : method === 'PATCH'
            ? 'patch'
            : method === 'DELETE'
              ? r.name === undefined
                ? 'deletecollection'
                : 'delete'
              : method.toLowerCase();
  if (faults.refusal({ group: r.group, resource: r.resource, namespace: r.namespace, verb }) === undefined) return;
  const scope = r.namespace === undefined ? 'at the cluster scope' : `in the namespace "${r.namespace}"`;
  const named = r.name === undefined ? '' : ` "${r.name}"`;
  throw new ApiStatusError(
    403,
    'Forbidden',
    `${resource}${named} is forbidden: User "system:serviceaccount:default:kindex-test" cannot ${verb} resource "${resource}" in API group "${r.group}" ${scope}`,
  );
}
