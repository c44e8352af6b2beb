import { InvalidOptionError } from '@kindex/core';

/**
 * A webhook, or the webhook server, is configured wrongly: names the webhook, the field and the fix.
 * A kind of `InvalidOptionError` (code `KINDEX_INVALID_OPTION`), as every bad option is.
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
export class WebhookConfigError extends InvalidOptionError {
  override readonly name: string = 'WebhookConfigError';
  /** Which webhook, for example `validating webhook validate.webpages.sample.kindex.dev`. */
  readonly webhook: string;
  /** The option at fault. */
  readonly field: string;

  constructor(webhook: string, field: string, fix: string, options?: { cause?: unknown }) {
    super({ options: webhook, key: field, value: undefined, problem: 'cannot work', fix }, `${webhook}: ${field}: ${fix}`, options);
    this.webhook = webhook;
    this.field = field;
  }
}
