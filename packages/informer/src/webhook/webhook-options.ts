/**
 * The options objects of the webhook server, each declared once: its keys and the value checks
 * TypeBox can say (and `WebhookServerOptions`, the interface users read). The checks that need the webhook's name or a rule of their own (a TCP port, a
 * DNS name, a ResourceKind) stay with the server and throw `WebhookConfigError`.
 *
 * @module
 */
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import type { MutatingWebhook, ValidatingWebhook } from './admission-webhook.js';
import type { ConversionWebhook } from './conversion-webhook.js';
import type { WebhookCertificates } from './webhook-certificates.js';

/**
 * Where the webhook server listens and which certificates it serves.
 *
 * @example
 * ```ts
 * import { Operator, type WebhookServerOptions } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * // In a pod: cert-manager's Secret mounted at /tmp/k8s-webhook-server/serving-certs.
 * const webhooks: WebhookServerOptions = { port: 9443, certDir: '/tmp/k8s-webhook-server/serving-certs' };
 * const operator = new Operator({ kubeConfig, webhooks });
 * ```
 */
export interface WebhookServerOptions {
  /** TCP port; 0 picks a free one (read it from `url` after `listen()`). */
  readonly port: number;
  /** Address to bind. Defaults to `0.0.0.0`: the API server calls from outside the pod. */
  readonly host?: string;
  /**
   * A directory with `tls.crt`, `tls.key` (and `ca.crt`), as a mounted cert-manager Secret;
   * re-read when its files change. Defaults to none.
   */
  readonly certDir?: string;
  /** Certificates in memory (see {@link generateWebhookCertificates}). Defaults to none. */
  readonly certificates?: WebhookCertificates;
  /** Largest request body accepted; a larger one gets 413. Defaults to 7 MiB, as controller-runtime. */
  readonly maxRequestBytes?: number;
}

/** {@link WebhookServerOptions}' keys and value checks. */
export const WEBHOOK_SERVER_OPTIONS = defineOptions<WebhookServerOptions>('webhook server options', {
  port: Type.Unknown(),
  host: Type.Optional(Type.String({ description: 'an address to bind, such as 0.0.0.0' })),
  certDir: Type.Optional(Type.String({ description: 'a directory holding tls.crt and tls.key' })),
  certificates: Type.Optional(
    Type.Object(
      { cert: Type.String(), key: Type.String(), caCert: Type.Optional(Type.String()) },
      { description: 'PEM strings { cert, key, caCert? }, as generateWebhookCertificates() returns' },
    ),
  ),
  maxRequestBytes: Type.Optional(Type.Integer({ exclusiveMinimum: 0, description: 'a positive number of bytes' })),
});

const ADMISSION_OPTION_SCHEMAS = {
  kind: Type.Unknown(),
  operations: Type.Optional(Type.Unknown()),
  name: Type.Optional(Type.Unknown()),
  failurePolicy: Type.Optional(Type.Union([Type.Literal('Fail'), Type.Literal('Ignore')], { description: "'Fail' or 'Ignore'" })),
  timeoutSeconds: Type.Optional(Type.Unknown()),
} as const;

/** A validating webhook's keys and value checks. */
export const VALIDATING_WEBHOOK_OPTIONS = defineOptions<ValidatingWebhook>('validating webhook', {
  ...ADMISSION_OPTION_SCHEMAS,
  validate: Type.Unknown(),
});

/** A mutating webhook's keys and value checks. */
export const MUTATING_WEBHOOK_OPTIONS = defineOptions<MutatingWebhook>('mutating webhook', {
  ...ADMISSION_OPTION_SCHEMAS,
  mutate: Type.Unknown(),
  reinvocationPolicy: Type.Optional(
    Type.Union([Type.Literal('Never'), Type.Literal('IfNeeded')], { description: "'Never' or 'IfNeeded'" }),
  ),
});

/** A conversion webhook's keys (its values are checked by `validateConversionWebhook`). */
export const CONVERSION_WEBHOOK_OPTIONS = defineOptions<ConversionWebhook>('conversion webhook', {
  group: Type.Unknown(),
  plural: Type.Unknown(),
  kind: Type.Unknown(),
  hub: Type.Unknown(),
  spokes: Type.Unknown(),
});
