// The `url` of a webhook's clientConfig, checked as kube-apiserver's webhook validation
// (k8s.io/apiserver pkg/util/webhook ValidateWebhookURL) does for admission webhook configurations
// and CRD conversion webhooks alike.

import type { StatusCause } from '../storage/status-error.js';

/** A FieldValueRequired cause at `field`. */
export function requiredCause(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueRequired', field, message: `Required value: ${detail}` };
}

/** A FieldValueInvalid cause at `field` for `value`. */
export function invalidValueCause(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(value)}: ${detail}` };
}

/** The 422 causes of a webhook `url` (https, a host, no user, query or fragment). */
export function webhookUrlCauses(field: string, text: string): StatusCause[] {
  const form = '; desired format: https://host[/path]';
  let url: URL;
  try {
    url = new URL(text);
  } catch (e) {
    return [requiredCause(field, `url must be a valid URL: ${(e as Error).message}${form}`)];
  }
  const causes: StatusCause[] = [];
  if (url.protocol !== 'https:')
    causes.push(invalidValueCause(field, url.protocol.replace(/:$/, ''), `'https' is the only allowed URL scheme${form}`));
  if (url.host === '') causes.push(invalidValueCause(field, url.host, `host must be specified${form}`));
  if (url.username !== '' || url.password !== '')
    causes.push(invalidValueCause(field, url.username, 'user information is not permitted in the URL'));
  if (url.hash !== '') causes.push(invalidValueCause(field, url.hash.slice(1), 'fragments are not permitted in the URL'));
  if (url.search !== '') causes.push(invalidValueCause(field, url.search.slice(1), 'query parameters are not permitted in the URL'));
  return causes;
}
