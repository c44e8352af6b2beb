/**
 * The webhook manifests derived from what is registered, as `rbacManifest()` derives RBAC: one
 * ValidatingWebhookConfiguration and one MutatingWebhookConfiguration (a webhook per registered
 * handler, its rule from the handler's kind and operations) and, per conversion webhook, the
 * `spec.conversion` stanza of its CRD.
 *
 * @module
 */
import { dumpYaml } from '@kubernetes/client-node';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import type { RegisteredAdmissionWebhook } from './webhook-server.js';
import type { ConversionWebhook } from './conversion-webhook.js';
import { WebhookConfigError } from './webhook-errors.js';

/**
 * Where the API server reaches the webhook server, and the CA it trusts.
 *
 * @example
 * ```ts
 * import type { Operator, WebhookManifestOptions } from '@kindex/informer';
 * import { readFileSync } from 'node:fs';
 * declare const operator: Operator;
 *
 * const options: WebhookManifestOptions = {
 *   service: { namespace: 'operators', name: 'web-operator-webhooks' },
 *   caBundle: readFileSync('ca.crt', 'utf8'),
 * };
 * const { yaml } = operator.webhookManifest(options);
 * ```
 */
export interface WebhookManifestOptions {
  /** A Service in front of the operator's pods (port defaults to 443). Give this or `url`. */
  readonly service?: { readonly namespace: string; readonly name: string; readonly port?: number };
  /** The server's base URL, `https://host:port`, as for a webhook outside the cluster. Give this or `service`. */
  readonly url?: string;
  /**
   * The CA certificate (PEM) the API server verifies the webhook server with; base64-encoded
   * into `caBundle`. Defaults to none (cert-manager's CA injector fills it in).
   */
  readonly caBundle?: string;
  /** Name of both configurations. Defaults to `kindex-operator`. */
  readonly name?: string;
}

/** {@link WebhookManifestOptions}' keys and value checks. */
const WEBHOOK_MANIFEST_OPTIONS = defineOptions<WebhookManifestOptions>('webhookManifest options', {
  service: Type.Optional(
    Type.Object(
      {
        namespace: Type.String({ minLength: 1 }),
        name: Type.String({ minLength: 1 }),
        port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
      },
      { description: '{ namespace, name, port? } of the Service in front of the webhook server' },
    ),
  ),
  url: Type.Optional(Type.String({ description: 'an https:// URL' })),
  caBundle: Type.Optional(Type.String({ description: 'the CA certificate, PEM' })),
  name: Type.Optional(Type.String({ minLength: 1, description: 'a non-empty name' })),
});

/**
 * One CRD's conversion stanza: merge `conversion` into the CRD's `spec`.
 *
 * @example
 * ```ts
 * import type { CrdConversionStanza, Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * const stanzas: readonly CrdConversionStanza[] = operator.webhookManifest({ url: 'https://127.0.0.1:9443' }).conversions;
 * for (const s of stanzas) console.log(`kubectl patch crd ${s.crd} --type=merge -p '${JSON.stringify({ spec: { conversion: s.conversion } })}'`);
 * ```
 */
export interface CrdConversionStanza {
  /** The CRD's name, `<plural>.<group>`. */
  readonly crd: string;
  readonly conversion: Record<string, unknown>;
}

/**
 * The derived manifests.
 *
 * @example
 * ```ts
 * import type { Operator, WebhookManifest } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * const manifest: WebhookManifest = operator.webhookManifest({ service: { namespace: 'operators', name: 'web-operator' } });
 * console.log(manifest.yaml); // kubectl apply -f -
 * ```
 */
export interface WebhookManifest {
  /** The ValidatingWebhookConfiguration; undefined when no validating webhook is registered. */
  readonly validating: Record<string, unknown> | undefined;
  /** The MutatingWebhookConfiguration; undefined when no mutating webhook is registered. */
  readonly mutating: Record<string, unknown> | undefined;
  /** Per conversion webhook, its CRD's `spec.conversion`. */
  readonly conversions: readonly CrdConversionStanza[];
  /** The configurations, as objects to create. */
  readonly objects: readonly Record<string, unknown>[];
  /** The configurations as YAML documents separated by `---`. */
  readonly yaml: string;
}

/**
 * Derives the manifests from registered webhooks (what `Operator.webhookManifest()` calls).
 *
 * @example
 * ```ts
 * import { webhookManifest, type WebhookServer } from '@kindex/informer';
 * declare const server: WebhookServer;
 *
 * const manifest = webhookManifest(server.admissionWebhooks, server.conversionWebhooks, { url: server.url!, caBundle: server.caCert });
 * ```
 */
export function webhookManifest(
  admission: readonly RegisteredAdmissionWebhook[],
  conversions: readonly ConversionWebhook[],
  options: WebhookManifestOptions,
): WebhookManifest {
  const clientConfig = clientConfigOf(options);
  const name = options.name ?? 'kindex-operator';
  const configuration = (type: 'validating' | 'mutating'): Record<string, unknown> | undefined => {
    const webhooks = admission.filter((w) => w.type === type);
    if (webhooks.length === 0) return undefined;
    return {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: type === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration',
      metadata: { name },
      webhooks: webhooks.map((w) => {
        const { kind } = w.webhook;
        return {
          name: w.name,
          admissionReviewVersions: ['v1'],
          // The handlers get `dryRun` and must honour it: kindex's contract.
          sideEffects: 'None',
          failurePolicy: w.webhook.failurePolicy ?? 'Fail',
          timeoutSeconds: w.webhook.timeoutSeconds ?? 10,
          matchPolicy: 'Equivalent',
          clientConfig: clientConfig(w.path),
          rules: [
            {
              apiGroups: [kind.group],
              apiVersions: [kind.version],
              operations: [...(w.webhook.operations ?? ['CREATE', 'UPDATE'])],
              resources: [kind.plural],
              scope: kind.namespaced ? 'Namespaced' : 'Cluster',
            },
          ],
          ...(w.type === 'mutating' ? { reinvocationPolicy: w.webhook.reinvocationPolicy ?? 'Never' } : {}),
        };
      }),
    };
  };
  const validating = configuration('validating');
  const mutating = configuration('mutating');
  const objects = [validating, mutating].filter((o) => o !== undefined);
  return {
    validating,
    mutating,
    conversions: conversions.map((c) => ({
      crd: `${c.plural}.${c.group}`,
      conversion: { strategy: 'Webhook', webhook: { clientConfig: clientConfig('/convert'), conversionReviewVersions: ['v1'] } },
    })),
    objects,
    yaml: objects.map((o) => dumpYaml(o)).join('---\n'),
  };
}

function clientConfigOf(options: WebhookManifestOptions): (path: string) => Record<string, unknown> {
  const where = 'webhookManifest';
  WEBHOOK_MANIFEST_OPTIONS.check(options);
  const { service, url, caBundle } = options ?? {};
  if ((service === undefined) === (url === undefined))
    throw new WebhookConfigError(
      where,
      service ? 'url' : 'service',
      'give either service (in the cluster) or url (outside it), one of them',
    );
  if (url !== undefined && !/^https:\/\/[^/?#]+$/.test(url))
    throw new WebhookConfigError(
      where,
      'url',
      `give the server's base URL as https://host:port, without a path, not ${JSON.stringify(url)}`,
    );
  if (
    service !== undefined &&
    (typeof service.namespace !== 'string' || !service.namespace || typeof service.name !== 'string' || !service.name)
  ) {
    throw new WebhookConfigError(where, 'service', 'give the namespace and name of the Service in front of the operator');
  }
  if (caBundle !== undefined && !caBundle.includes('-----BEGIN CERTIFICATE-----')) {
    throw new WebhookConfigError(
      where,
      'caBundle',
      'give the CA certificate as PEM text (-----BEGIN CERTIFICATE-----); kindex base64-encodes it',
    );
  }
  const ca = caBundle !== undefined ? { caBundle: Buffer.from(caBundle).toString('base64') } : {};
  return (path) =>
    url !== undefined
      ? { url: `${url}${path}`, ...ca }
      : { service: { namespace: service!.namespace, name: service!.name, port: service!.port ?? 443, path }, ...ca };
}
