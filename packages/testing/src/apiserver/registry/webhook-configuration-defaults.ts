// The defaults kube-apiserver writes into Validating/MutatingWebhookConfigurations
// (admissionregistration/v1 SetDefaults_*), so that a configuration reads back the same from the
// embedded server as from a real one.

import { MUTATING_CONFIGURATIONS, VALIDATING_CONFIGURATIONS } from '../admission/admission-webhook-dispatcher.js';
import type { Json } from '../storage/object-store.js';

/** Fills in the defaults of a webhook configuration; other kinds are left alone. */
export function defaultWebhookConfiguration(typeId: string, obj: Json): void {
  if (typeId !== MUTATING_CONFIGURATIONS && typeId !== VALIDATING_CONFIGURATIONS) return;
  if (!Array.isArray(obj['webhooks'])) return;
  for (const hook of obj['webhooks'] as Json[]) {
    hook['failurePolicy'] ??= 'Fail';
    hook['matchPolicy'] ??= 'Equivalent';
    hook['namespaceSelector'] ??= {};
    hook['objectSelector'] ??= {};
    hook['timeoutSeconds'] ??= 10;
    if (typeId === MUTATING_CONFIGURATIONS) hook['reinvocationPolicy'] ??= 'Never';
    const service = (hook['clientConfig'] as Json | undefined)?.['service'] as Json | undefined;
    if (service !== undefined) service['port'] ??= 443;
    if (Array.isArray(hook['rules'])) for (const rule of hook['rules'] as Json[]) rule['scope'] ??= '*';
  }
}
