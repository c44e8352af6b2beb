// Where a webhook given by `clientConfig.service` is reached, with the TLS name checked staying
// `<name>.<namespace>.svc` in every case:
// - a Service of type ExternalName: `<externalName>:<port>`, the port being the webhook's
//   service.port (the Service's ports are not read), as kube-apiserver does without
//   `--enable-aggregator-routing` (k8s.io/apiserver pkg/util/proxy ResolveCluster). This is how
//   tests reach a webhook on 127.0.0.1: `externalName: localhost`.
// - other Services through their EndpointSlices, as kube-apiserver does with
//   `--enable-aggregator-routing` (clusters without kube-proxy; ResolveEndpoint): the Service's
//   port (by number), the slice port of the same name, a ready endpoint's first address. There is
//   no cluster network to reach a ClusterIP at, so this stands in for it. EndpointSlices may not
//   hold loopback addresses, so this path serves non-loopback clusters only.
// - the `webhookServices` option first, mapping a Service to any address, 127.0.0.1 included.

import { randomInt } from 'node:crypto';
import { ENDPOINT_SLICES } from '../storage/resource-registry.js';
import type { Json, ObjectStore } from '../storage/object-store.js';

/**
 * A webhook's `clientConfig.service`, port defaulted: what a {@link WebhookServiceAddresses}
 * function is asked about.
 *
 * @example
 * ```ts
 * import type { WebhookServiceReference } from '@kindex/testing';
 *
 * const toLocal = (service: WebhookServiceReference): string | undefined =>
 *   service.namespace === 'system' ? `https://127.0.0.1:${9443 + service.port - 443}` : undefined;
 * ```
 */
export interface WebhookServiceReference {
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
}

/**
 * Addresses of Services for webhooks by `service` reference: `'<namespace>/<name>:<port>'` to a
 * base URL such as `'https://127.0.0.1:9443'`, or a function answering undefined for Services to
 * resolve as the stored Service says (an ExternalName Service at `<externalName>:<port>`, others
 * through their EndpointSlices). The webhook's certificate must be valid for
 * `<name>.<namespace>.svc`, as kube-apiserver checks it.
 *
 * @example
 * ```ts
 * import { startEmbeddedApiServer, type WebhookServiceAddresses } from '@kindex/testing';
 *
 * // The operator's webhook server listens on 127.0.0.1:9443; its configuration names the Service.
 * const webhookServices: WebhookServiceAddresses = { 'system/webhook-service:443': 'https://127.0.0.1:9443' };
 * const server = await startEmbeddedApiServer({ webhookServices });
 * ```
 */
export type WebhookServiceAddresses = Readonly<Record<string, string>> | ((service: WebhookServiceReference) => string | undefined);

/** A Service that does not resolve; the message is kube-apiserver's. */
export class ServiceResolutionError extends Error {
  override readonly name = 'ServiceResolutionError';
}

/** The `host:port` a Service's webhook is called at. */
export function resolveWebhookService(
  store: ObjectStore,
  service: WebhookServiceReference,
  addresses: WebhookServiceAddresses | undefined,
): string {
  const mapped = typeof addresses === 'function' ? addresses(service) : addresses?.[`${service.namespace}/${service.name}:${service.port}`];
  if (mapped !== undefined) return new URL(mapped).host;
  const svc = store.get('/services', `${service.namespace}/${service.name}`)?.obj;
  if (svc === undefined) throw new ServiceResolutionError(`service "${service.name}" not found`);
  const spec = (svc['spec'] ?? {}) as Json;
  const type = typeof spec['type'] === 'string' ? spec['type'] : 'ClusterIP';
  if (type === 'ExternalName') {
    // kube-apiserver refuses such a Service when it is written; the embedded server does not validate Services.
    const externalName = spec['externalName'];
    if (typeof externalName !== 'string' || externalName === '') {
      throw new ServiceResolutionError(
        `service "${service.name}" of type ExternalName has no spec.externalName: set it to a DNS name such as localhost`,
      );
    }
    return `${externalName}:${service.port}`;
  }
  if (!['ClusterIP', 'LoadBalancer', 'NodePort'].includes(type)) throw new ServiceResolutionError(`unsupported service type "${type}"`);
  const svcPort = (Array.isArray(spec['ports']) ? (spec['ports'] as Json[]) : []).find((p) => p['port'] === service.port);
  if (svcPort === undefined) {
    throw new ServiceResolutionError(`no service port ${service.port} found for service "${service.name}"`);
  }
  const portName = typeof svcPort['name'] === 'string' ? svcPort['name'] : '';
  for (const { obj: slice } of store.list(ENDPOINT_SLICES, service.namespace)) {
    const labels = ((slice['metadata'] as Json | undefined)?.['labels'] ?? {}) as Record<string, string>;
    if (labels['kubernetes.io/service-name'] !== service.name) continue;
    const ports = Array.isArray(slice['ports']) ? (slice['ports'] as Json[]) : [];
    const endpoints = Array.isArray(slice['endpoints']) ? (slice['endpoints'] as Json[]) : [];
    for (const port of ports) {
      if (port['name'] !== portName || typeof port['port'] !== 'number' || endpoints.length === 0) continue;
      // From a random endpoint on, the first ready one, as kube-apiserver spreads its calls.
      const offset = randomInt(endpoints.length);
      for (let i = 0; i < endpoints.length; i++) {
        const endpoint = endpoints[(i + offset) % endpoints.length]!;
        const ready = ((endpoint['conditions'] ?? {}) as Json)['ready'];
        if (ready === false) continue;
        const ip = String((endpoint['addresses'] as unknown[])[0]);
        return `${ip.includes(':') ? `[${ip}]` : ip}:${port['port']}`;
      }
    }
  }
  throw new ServiceResolutionError(`no endpoints available for service "${service.name}"`);
}
