/**
 * The client stage: writes (and the occasional uncached read) against the API server, through
 * the official client's KubeConfig (authentication, TLS, exec plugins).
 *
 * Objects travel as the server's plain JSON, the same shape the caches hold, so an object a
 * reconciler wrote can stand in the cache until the watch delivers it (read-after-write). For
 * typed or generic access beyond this, `objectApi()` returns client-node's `KubernetesObjectApi`.
 *
 * @module
 */
import { KubernetesObjectApi, type KubeConfig } from '@kubernetes/client-node';
import { ResourceID, type KubernetesObject } from '@kindex/core';
import { collectionPath, type ResourceType } from '../reflector/resource-type.js';
import { InformerRegistry } from '../cache/informer-registry.js';
import { buildKubeRequest } from './internal/build-kube-request.js';

/** A failed API call: the HTTP status, and the Kubernetes Status reason and message. */
export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly reason: string | undefined,
    message: string,
  ) {
    super(`${method} ${path}: ${status}${reason ? ` ${reason}` : ''}: ${message}`);
  }
}

/** Patch content types the API server accepts for every kind. */
export type PatchType = 'merge' | 'json';

const CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
};

/** Options of {@link KubeClient}. */
export interface KubeClientOptions {
  /** Field manager recorded for writes. Defaults to `kindex`. */
  readonly fieldManager?: string;
  /** Registry of shared informers. Defaults to a new one. */
  readonly registry?: InformerRegistry;
}

/**
 * The Kubernetes client kindex hands to reconcilers and event sources: the KubeConfig, the
 * registry of shared informers, and raw-JSON object operations.
 */
export class KubeClient {
  readonly kubeConfig: KubeConfig;
  readonly registry: InformerRegistry;
  readonly fieldManager: string;
  #objectApi: KubernetesObjectApi | undefined;

  constructor(kubeConfig: KubeConfig, options: KubeClientOptions = {}) {
    this.kubeConfig = kubeConfig;
    this.registry = options.registry ?? new InformerRegistry();
    this.fieldManager = options.fieldManager ?? 'kindex';
  }

  /** client-node's generic object API on the same KubeConfig. */
  objectApi(): KubernetesObjectApi {
    this.#objectApi ??= KubernetesObjectApi.makeApiClient(this.kubeConfig);
    return this.#objectApi;
  }

  /** Reads one object from the server (not the cache); undefined when it does not exist. */
  async get<R extends KubernetesObject>(type: ResourceType, id: ResourceID): Promise<R | undefined> {
    try {
      return await this.#send<R>('GET', objectPath(type, id));
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** Creates an object; the namespace comes from the object. */
  create<R extends KubernetesObject>(type: ResourceType, object: R): Promise<R> {
    const path = collectionPath(type, object.metadata?.namespace);
    return this.#send<R>('POST', path, object, 'application/json');
  }

  /** Replaces an object (optimistic concurrency on its resourceVersion). */
  update<R extends KubernetesObject>(type: ResourceType, object: R, subresource?: 'status'): Promise<R> {
    const id = ResourceID.fromResource(object);
    return this.#send<R>('PUT', objectPath(type, id, subresource), object, 'application/json');
  }

  /** Patches an object, or its status subresource. */
  patch<R extends KubernetesObject>(
    type: ResourceType,
    id: ResourceID,
    patch: unknown,
    options: { subresource?: 'status'; patchType?: PatchType } = {},
  ): Promise<R> {
    const contentType = CONTENT_TYPES[options.patchType ?? 'merge'];
    return this.#send<R>('PATCH', objectPath(type, id, options.subresource), patch, contentType);
  }

  /** Deletes an object; resolves false when it was already gone. */
  async delete(type: ResourceType, id: ResourceID, options: { propagationPolicy?: 'Background' | 'Foreground' | 'Orphan' } = {}): Promise<boolean> {
    try {
      const body = options.propagationPolicy
        ? { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: options.propagationPolicy }
        : undefined;
      await this.#send('DELETE', objectPath(type, id), body, body ? 'application/json' : undefined);
      return true;
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return false;
      throw error;
    }
  }

  async #send<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const query = method !== 'GET' && method !== 'DELETE' ? { fieldManager: this.fieldManager } : {};
    const headers: Record<string, string> = payload
      ? { 'content-type': contentType ?? 'application/json', 'content-length': String(payload.length) }
      : {};
    const { url, options, transport } = await buildKubeRequest(this.kubeConfig, method, path, query, headers);
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = transport.request(url, options, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.once('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        response.once('error', reject);
      });
      request.once('error', reject);
      request.end(payload);
    });
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (status < 200 || status >= 300) {
      const s = (parsed ?? {}) as { reason?: unknown; message?: unknown };
      throw new KubeApiError(
        method,
        path,
        status,
        typeof s.reason === 'string' ? s.reason : undefined,
        typeof s.message === 'string' ? s.message : text.slice(0, 200),
      );
    }
    return parsed as T;
  }
}

/** The path of one object (and optionally a subresource). */
export function objectPath(type: ResourceType, id: ResourceID, subresource?: string): string {
  const base = collectionPath(type, type.namespaced ? id.namespace : undefined);
  return `${base}/${encodeURIComponent(id.name)}${subresource ? `/${subresource}` : ''}`;
}
