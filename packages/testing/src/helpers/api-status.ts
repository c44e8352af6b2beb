/**
 * One reason a request was invalid, as listed in a `Status`'s `details.causes`.
 *
 * @example
 * ```ts
 * import type { ApiStatus, ApiStatusCause } from '@kindex/testing';
 * declare const status: ApiStatus;
 *
 * const invalidFields = (status.details?.causes ?? []).map((c: ApiStatusCause) => `${c.field}: ${c.message}`);
 * ```
 */
export interface ApiStatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

/**
 * The `Status` object Kubernetes answers every failed request with.
 *
 * @example
 * ```ts
 * import { catchApiStatus, type ApiStatus, type TestApiServer } from '@kindex/testing';
 * import { CoreV1Api } from '@kubernetes/client-node';
 * import assert from 'node:assert/strict';
 * declare const server: TestApiServer;
 *
 * const core = server.kubeConfig.makeApiClient(CoreV1Api);
 * const status: ApiStatus = await catchApiStatus(core.readNamespacedConfigMap({ name: 'missing', namespace: 'default' }));
 * assert.equal(status.reason, 'NotFound');
 * ```
 */
export interface ApiStatus {
  readonly kind?: string;
  readonly apiVersion?: string;
  readonly status?: string;
  readonly code: number;
  readonly reason?: string;
  readonly message?: string;
  readonly details?: {
    readonly name?: string;
    readonly group?: string;
    readonly kind?: string;
    readonly uid?: string;
    readonly causes?: readonly ApiStatusCause[];
    readonly retryAfterSeconds?: number;
  };
}

/**
 * Thrown by {@link catchApiStatus} when the request it awaited did not fail as a Kubernetes error.
 *
 * @example
 * ```ts
 * import { catchApiStatus, NotAnApiStatusError } from '@kindex/testing';
 * declare const request: Promise<unknown>;
 *
 * try {
 *   await catchApiStatus(request);
 * } catch (error) {
 *   // The request succeeded, or failed with something other than a Kubernetes Status (a network error).
 *   if (error instanceof NotAnApiStatusError) console.error(error.message);
 * }
 * ```
 */
export class NotAnApiStatusError extends Error {
  override readonly name = 'NotAnApiStatusError';
  readonly code = 'KINDEX_NOT_AN_API_STATUS';
}

/**
 * Returns the `Status` carried by an error from `@kubernetes/client-node` (an `ApiException`,
 * whose `body` is the Status as a JSON string, or a `Watch` failure with `statusCode`), or
 * `undefined` when the error carries none.
 *
 * A 401 from the typed APIs has no body in client-node 1.4; the result then has only `code`.
 *
 * @example
 * ```ts
 * import { type TestApiServer } from '@kindex/testing';
 * import { apiStatusOf } from '@kindex/testing/internal';
 * import { CoreV1Api } from '@kubernetes/client-node';
 * declare const server: TestApiServer;
 *
 * const core = server.kubeConfig.makeApiClient(CoreV1Api);
 * try {
 *   await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'Not_Valid' } } });
 * } catch (error) {
 *   console.log(apiStatusOf(error)?.details?.causes?.map((c) => c.field)); // ['metadata.name']
 * }
 * ```
 */
export function apiStatusOf(error: unknown): ApiStatus | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const candidate = error as { code?: unknown; statusCode?: unknown; body?: unknown };
  const code = typeof candidate.code === 'number' ? candidate.code : candidate.statusCode;
  let body = candidate.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body) as unknown;
    } catch {
      body = undefined;
    }
  }
  if (isStatus(body)) return body;
  if (typeof code === 'number') return { code };
  return isStatus(error) ? error : undefined;
}

/**
 * Tells whether a value (a response body, a watch ERROR event's object) is a `Status`.
 *
 * @example
 * ```ts
 * import { rawRequest, type TestApiServer } from '@kindex/testing';
 * import { isStatus } from '@kindex/testing/internal';
 * declare const server: TestApiServer;
 *
 * const response = await rawRequest(server.kubeConfig, { path: '/api/v1/namespaces/default/configmaps/missing' });
 * const body: unknown = JSON.parse(response.text);
 * if (isStatus(body)) console.log(body.code, body.reason); // 404 NotFound
 * ```
 */
export function isStatus(value: unknown): value is ApiStatus {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'Status' &&
    typeof (value as { code?: unknown }).code === 'number'
  );
}

/**
 * Awaits a request that must fail and returns the `Status` it failed with.
 *
 * @throws NotAnApiStatusError when the request succeeds or fails without a Status code.
 * @example
 * ```ts
 * import { catchApiStatus } from '@kindex/testing';
 * import type { CoreV1Api } from '@kubernetes/client-node';
 * import { expect } from 'chai';
 * declare const core: CoreV1Api;
 * declare const name: string;
 * declare const namespace: string;
 * const status = await catchApiStatus(core.readNamespacedConfigMap({ name, namespace }));
 * expect(status).to.include({ code: 404, reason: 'NotFound' });
 * ```
 */
export async function catchApiStatus(request: Promise<unknown>): Promise<ApiStatus> {
  let result: unknown;
  try {
    result = await request;
  } catch (error) {
    const status = apiStatusOf(error);
    if (status !== undefined) return status;
    throw new NotAnApiStatusError(`expected a Kubernetes Status error, got ${String(error)}`, { cause: error });
  }
  throw new NotAnApiStatusError(`expected the request to fail, but it returned ${JSON.stringify(result)?.slice(0, 300)}`);
}
