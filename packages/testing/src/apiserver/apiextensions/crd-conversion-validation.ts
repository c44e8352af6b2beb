// Validation of a CRD's `spec.conversion`, as apiextensions-apiserver words it (its messages name
// the internal fields: `spec.conversion.webhookClientConfig`, `spec.conversion.conversionReviewVersions`).

import type { Json } from '../storage/object-store.js';
import type { StatusCause } from '../storage/status-error.js';
import { webhookUrlCauses } from '../webhook/webhook-url.js';

const STRATEGIES = ['None', 'Webhook'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** The 422 causes of `spec.conversion` (absent: none). */
export function conversionCauses(conversion: unknown): StatusCause[] {
  if (conversion === undefined || conversion === null) return [];
  const c = conversion as Json;
  const at = 'spec.conversion';
  const strategy = c['strategy'];
  if (typeof strategy !== 'string' || strategy === '')
    return [{ reason: 'FieldValueRequired', field: `${at}.strategy`, message: 'Required value' }];
  if (!STRATEGIES.includes(strategy)) {
    return [
      {
        reason: 'FieldValueNotSupported',
        field: `${at}.strategy`,
        message: `Unsupported value: ${JSON.stringify(strategy)}: supported values: ${STRATEGIES.map((s) => JSON.stringify(s)).join(', ')}`,
      },
    ];
  }
  const webhook = c['webhook'] as Json | undefined;
  const client = webhook?.['clientConfig'] as Json | undefined;
  const versions = webhook?.['conversionReviewVersions'];
  if (strategy !== 'Webhook') {
    const forbidden = (field: string): StatusCause => ({
      reason: 'FieldValueForbidden',
      field: `${at}.${field}`,
      message: 'Forbidden: should not be set when strategy is not set to Webhook',
    });
    return [
      ...(client !== undefined ? [forbidden('webhookClientConfig')] : []),
      ...(Array.isArray(versions) && versions.length > 0 ? [forbidden('conversionReviewVersions')] : []),
    ];
  }
  const causes: StatusCause[] = [];
  const clientAt = `${at}.webhookClientConfig`;
  if (client === undefined) {
    causes.push({ reason: 'FieldValueRequired', field: clientAt, message: 'Required value: required when strategy is set to Webhook' });
  } else if ((client['url'] === undefined) === (client['service'] === undefined)) {
    causes.push({ reason: 'FieldValueRequired', field: clientAt, message: 'Required value: exactly one of url or service is required' });
  } else if (typeof client['url'] === 'string') {
    causes.push(...webhookUrlCauses(`${clientAt}.url`, client['url']));
  }
  const list = Array.isArray(versions) ? versions.map(String) : [];
  if (list.length === 0) {
    causes.push({ reason: 'FieldValueRequired', field: `${at}.conversionReviewVersions`, message: 'Required value' });
  } else if (!list.some((v) => REVIEW_VERSIONS.includes(v))) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: `${at}.conversionReviewVersions`,
      message: `Invalid value: ${JSON.stringify(list)}: must include at least one of ${REVIEW_VERSIONS.join(', ')}`,
    });
  }
  return causes;
}
