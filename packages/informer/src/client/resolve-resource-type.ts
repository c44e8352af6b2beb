import type { KubeConfig } from '@kubernetes/client-node';
import { decodeBody, sendRequest } from './kube-request.js';
import type { ResourceType } from '../kind/resource-type.js';
import { KubeApiError } from './kube-api-error.js';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';

/**
 * Options of {@link resolveResourceType}.
 *
 * @example
 * ```ts
 * import { resolveResourceType, type ResolveResourceTypeOptions } from '@kindex/informer/internal';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const options: ResolveResourceTypeOptions = { signal: AbortSignal.timeout(10_000) };
 * const deployments = await resolveResourceType(kubeConfig, 'apps/v1', 'Deployment', options);
 * ```
 */
export interface ResolveResourceTypeOptions {
  /** Aborts the discovery request. Defaults to none. */
  readonly signal?: AbortSignal;
  /** Gives up when the server sends nothing for this long. Defaults to 30 000 ms. */
  readonly inactivityTimeoutMs?: number;
}

/** {@link ResolveResourceTypeOptions}' keys and value checks. */
const RESOLVE_RESOURCE_TYPE_OPTIONS = defineOptions<ResolveResourceTypeOptions>('resolveResourceType options', {
  signal: Type.Optional(Type.Unknown()),
  inactivityTimeoutMs: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'a positive number of milliseconds' })),
});

/**
 * The API server does not serve the kind at that apiVersion.
 *
 * @example
 * ```ts
 * import { UnknownResourceTypeError } from '@kindex/informer';
 * declare const error: unknown; // caught around the request that named the kind
 *
 * // The CRD is not installed (or not served at that version).
 * if (error instanceof UnknownResourceTypeError) console.error(`install the CRD for ${error.kind}.${error.apiVersion}`);
 * ```
 */
export class UnknownResourceTypeError extends Error {
  override readonly name = 'UnknownResourceTypeError';
  readonly code = 'KINDEX_UNKNOWN_RESOURCE_TYPE';

  constructor(
    readonly apiVersion: string,
    readonly kind: string,
    options?: { cause?: unknown },
  ) {
    super(`the API server serves no kind ${kind} in ${apiVersion}`, options);
  }
}

/**
 * Finds the {@link ResourceType} of a kind through API discovery (`/api/v1` or
 * `/apis/<group>/<version>`), for callers that know an object's `apiVersion` and `kind` only.
 *
 * @throws {UnknownResourceTypeError} when the group/version or the kind is not served.
 * @example
 * ```ts
 * import { resolveResourceType } from '@kindex/informer/internal';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 * const type = await resolveResourceType(kubeConfig, 'apps/v1', 'Deployment');
 * // { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true }
 * ```
 */
export async function resolveResourceType(
  kubeConfig: KubeConfig,
  apiVersion: string,
  kind: string,
  options: ResolveResourceTypeOptions = {},
): Promise<ResourceType> {
  RESOLVE_RESOURCE_TYPE_OPTIONS.check(options);
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  let answer: Awaited<ReturnType<typeof sendRequest>>;
  try {
    answer = await sendRequest(kubeConfig, {
      path,
      shape: 'object',
      inactivityMs: options.inactivityTimeoutMs ?? 30_000,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 404) throw new UnknownResourceTypeError(apiVersion, kind, { cause: error });
    throw error;
  }
  const list = decodeBody(answer.open, answer.body, 'object') as {
    resources?: Array<{ name?: unknown; kind?: unknown; namespaced?: unknown }>;
  } | null;
  // Subresources (`pods/status`) share the kind of their parent; only a plain name is the collection.
  const found = (list?.resources ?? []).find((r) => r.kind === kind && typeof r.name === 'string' && !r.name.includes('/'));
  if (found === undefined) throw new UnknownResourceTypeError(apiVersion, kind);
  return Object.freeze({ group, version, plural: found.name as string, kind, namespaced: found.namespaced === true });
}
