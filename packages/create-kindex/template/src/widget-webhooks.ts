/**
 * The Widget's admission webhooks, served by the operator over HTTPS (`kindex manifests` writes
 * their configurations, Service and serving certificate):
 * - mutating: trims the whitespace around `spec.message`, so that what is stored is what is shown;
 * - validating: refuses a change of `spec.key` (the ConfigMap's readers look the message up by it).
 */
import type { WebhookServer } from '@kindex/informer';
import { DEFAULT_KEY, Widgets, type Widget } from './widget.js';

/** Registers the Widget's webhooks on the operator's webhook server (`operator.webhooks`). */
export function registerWidgetWebhooks(webhooks: WebhookServer): void {
  webhooks.mutating<Widget>({
    kind: Widgets,
    operations: ['CREATE', 'UPDATE'],
    mutate: ({ object }) => ({ allowed: true, object: { ...object!, spec: { ...object!.spec, message: object!.spec.message.trim() } } }),
  });
  webhooks.validating<Widget>({
    kind: Widgets,
    operations: ['UPDATE'],
    validate: ({ object, oldObject }) => {
      const key = object?.spec.key ?? DEFAULT_KEY;
      const oldKey = oldObject?.spec.key ?? DEFAULT_KEY;
      return key === oldKey
        ? { allowed: true }
        : { allowed: false, message: `spec.key cannot change (from ${oldKey} to ${key}): create a new Widget for another key` };
    },
  });
}
