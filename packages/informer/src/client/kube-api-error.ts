/**
 * The one error for an API request the server answered with a non-2xx status, whoever sent it
 * (the reflector's lists and watches, KubeClient's reads and writes, discovery), and the watch
 * ERROR event that carries a Status in the stream.
 *
 * @module
 */

/** Statuses that asking again will not change until someone fixes configuration, credentials, RBAC or the CRD. */
const NON_TRANSIENT_STATUSES: ReadonlySet<number> = new Set([400, 401, 403, 404]);

/** The Kubernetes verb of each writing method (a GET is `get`, `list` or `watch` by its path). */
const WRITE_VERBS: Readonly<Record<string, KubeApiVerb>> = { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/**
 * The Kubernetes verb of a request, as RBAC names it.
 *
 * @example
 * ```ts
 * import type { KubeApiError, KubeApiVerb } from '@kindex/informer';
 * declare const error: KubeApiError;
 * const verb: KubeApiVerb = error.verb; // 'list' for GET /api/v1/pods
 * ```
 */
export type KubeApiVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

/**
 * Options of {@link KubeApiError}.
 *
 * @example
 * ```ts
 * import { KubeApiError, type KubeApiErrorOptions } from '@kindex/informer';
 * const options: KubeApiErrorOptions = { retryAfterSeconds: 2 };
 * const error = new KubeApiError('GET', '/api/v1/pods?limit=500', 429, 'TooManyRequests', 'slow down', options);
 * ```
 */
export interface KubeApiErrorOptions {
  /** Seconds the server asked to wait (its Retry-After header). Defaults to none. */
  readonly retryAfterSeconds?: number;
  /** The underlying error. Defaults to none. */
  readonly cause?: unknown;
}

/**
 * A failed API call: the HTTP status (or the `code` of a watch ERROR event), and the Kubernetes
 * Status reason and message. Reads, watches and writes all fail with it.
 *
 * @example
 * ```ts
 * import { KubeApiError, Kinds, type KubeClient } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * declare const client: KubeClient;
 * declare const configMap: KubernetesObject;
 *
 * try {
 *   await client.create(Kinds.ConfigMap, configMap);
 * } catch (error) {
 *   if (!(error instanceof KubeApiError && error.status === 409)) throw error; // 409: it exists already, fine
 * }
 * ```
 */
export class KubeApiError extends Error {
  override readonly name: string = 'KubeApiError';
  readonly code = 'KINDEX_KUBE_API';
  /** The request as sent, `METHOD /path?query`. */
  readonly request: string;
  /** Seconds the server asked us to wait (Retry-After), when it did. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    /** The HTTP method, for example `GET`. */
    readonly method: string,
    /** The path, with the query the request carried. */
    readonly path: string,
    /** HTTP status code, or the `code` of a watch ERROR event. */
    readonly status: number,
    /** The `reason` of the Kubernetes Status, for example `Expired`, `Forbidden` or `TooManyRequests`. */
    readonly reason: string | undefined,
    message: string,
    options: KubeApiErrorOptions = {},
  ) {
    const request = `${method} ${path}`;
    super(
      `${request}: ${status}${reason ? ` ${reason}` : ''}: ${message}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.request = request;
    this.retryAfterSeconds = options.retryAfterSeconds;
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

  /** The Kubernetes verb of the failed request: for a GET, `watch`, `list` (a collection) or `get`. */
  get verb(): KubeApiVerb {
    const write = WRITE_VERBS[this.method];
    if (write !== undefined) return write;
    const [path = '', query = ''] = this.path.split('?');
    if (/(^|&)watch=(true|1)(&|$)/.test(query)) return 'watch';
    // A collection path ends with the plural (odd segment count after the group/version root).
    const segments = path.split('/').filter((s) => s !== '');
    const rest = segments[0] === 'api' ? segments.slice(2) : segments.slice(3);
    const inNamespace = rest[0] === 'namespaces' && rest.length >= 3;
    const tail = inNamespace ? rest.slice(2) : rest;
    return tail.length === 1 ? 'list' : 'get';
  }
}

/**
 * True when `error` is an API answer that retrying will not change (see {@link KubeApiError.nonTransient}).
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
export function isNonTransient(error: unknown): error is KubeApiError {
  return error instanceof KubeApiError && error.nonTransient;
}
