/**
 * A webhook, or the webhook server, is configured wrongly: names the webhook, the field and the fix.
 *
 * @example
 * ```ts
 * import { WebhookConfigError, type WebhookServer, type ResourceKind } from '@kindex/informer';
 * declare const webhooks: WebhookServer;
 * declare const WebPages: ResourceKind;
 *
 * try {
 *   webhooks.validating({ kind: WebPages, timeoutSeconds: 60, validate: () => ({ allowed: true }) });
 * } catch (error) {
 *   if (error instanceof WebhookConfigError) console.error(error.field); // 'timeoutSeconds'
 * }
 * ```
 */
export class WebhookConfigError extends Error {
  override readonly name = 'WebhookConfigError';
  constructor(
    /** Which webhook, for example `validating webhook validate.webpages.sample.kindex.dev`. */
    readonly webhook: string,
    /** The option at fault. */
    readonly field: string,
    fix: string,
    options?: { cause?: unknown },
  ) {
    super(`${webhook}: ${field}: ${fix}`, options);
  }
}
