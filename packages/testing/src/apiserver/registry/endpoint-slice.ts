// EndpointSlices (discovery.k8s.io/v1): where a Service's endpoints are. The embedded server
// stores them for what reads them, chiefly the calls to webhooks by `service` reference
// (webhook-service-resolver.ts), with kube-apiserver's defaults (a port's name "" and protocol
// TCP) and the validation that tests run into (pkg/apis/discovery/validation): the address type,
// addresses that are IPs of that type and not loopback, link-local or unspecified ones (a
// webhook served on 127.0.0.1 cannot be an endpoint), and port names and protocols.

import { isIP, isIPv4 } from 'node:net';
import type { Json } from '../storage/object-store.js';
import { ENDPOINT_SLICES } from '../storage/resource-registry.js';
import type { StatusCause } from '../storage/status-error.js';

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const DNS_LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const supported = (values: readonly string[]): string => values.map((v) => JSON.stringify(v)).join(', ');

/** Fills in kube-apiserver's defaults: each port's name ("") and protocol (TCP). */
export function defaultEndpointSlice(typeId: string, obj: Json): void {
  if (typeId !== ENDPOINT_SLICES || !Array.isArray(obj['ports'])) return;
  for (const port of obj['ports'] as Json[]) {
    port['name'] ??= '';
    port['protocol'] ??= 'TCP';
  }
}

// ValidateEndpointIP: the special ranges an endpoint may not be in.
function specialRange(ip: string): string | undefined {
  const v4 = isIPv4(ip) ? ip.split('.').map(Number) : undefined;
  const v6 = v4 === undefined ? ip.toLowerCase() : undefined;
  if (ip === '0.0.0.0' || v6 === '::') return `may not be unspecified (${ip})`;
  if (v4?.[0] === 127 || v6 === '::1') return 'may not be in the loopback range (127.0.0.0/8, ::1/128)';
  if ((v4?.[0] === 169 && v4[1] === 254) || /^fe[89ab]/.test(v6 ?? '')) {
    return 'may not be in the link-local range (169.254.0.0/16, fe80::/10)';
  }
  if ((v4?.[0] === 224 && v4[1] === 0 && v4[2] === 0) || v6?.startsWith('ff02:') === true) {
    return 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)';
  }
  return undefined;
}

function addressCauses(address: unknown, type: string, field: string): StatusCause[] {
  const text = typeof address === 'string' ? address : '';
  const invalid = (why: string): StatusCause => ({
    reason: 'FieldValueInvalid',
    field,
    message: `Invalid value: ${JSON.stringify(text)}: ${why}`,
  });
  if (type !== 'IPv4' && type !== 'IPv6') return [];
  if (isIP(text) === 0) return [invalid('must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
  const causes: StatusCause[] = [];
  if ((type === 'IPv4') !== (isIP(text) === 4)) causes.push(invalid(`must be an ${type} address`));
  const special = specialRange(text);
  if (special !== undefined) causes.push(invalid(special));
  return causes;
}

/** The 422 causes of an EndpointSlice, as kube-apiserver's ValidateEndpointSlice words them. */
export function endpointSliceCauses(obj: Readonly<Json>): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = typeof obj['addressType'] === 'string' ? obj['addressType'] : '';
  if (type === '') causes.push({ reason: 'FieldValueRequired', field: 'addressType', message: 'Required value' });
  else if (!ADDRESS_TYPES.includes(type)) {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'addressType',
      message: `Unsupported value: ${JSON.stringify(type)}: supported values: ${supported(ADDRESS_TYPES)}`,
    });
  }
  const names = new Set<string>();
  (Array.isArray(obj['ports']) ? (obj['ports'] as Json[]) : []).forEach((port, i) => {
    const name = typeof port['name'] === 'string' ? port['name'] : '';
    if (name !== '' && (name.length > 63 || !DNS_LABEL_RE.test(name))) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: `ports[${i}].name`,
        message: `Invalid value: ${JSON.stringify(name)}: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      });
    }
    if (names.has(name))
      causes.push({ reason: 'FieldValueDuplicate', field: `ports[${i}].name`, message: `Duplicate value: ${JSON.stringify(name)}` });
    names.add(name);
    const protocol = port['protocol'] ?? 'TCP';
    if (typeof protocol !== 'string' || !PROTOCOLS.includes(protocol)) {
      causes.push({
        reason: 'FieldValueNotSupported',
        field: `ports[${i}].protocol`,
        message: `Unsupported value: ${JSON.stringify(protocol)}: supported values: ${supported(PROTOCOLS)}`,
      });
    }
  });
  (Array.isArray(obj['endpoints']) ? (obj['endpoints'] as Json[]) : []).forEach((endpoint, i) => {
    const addresses = Array.isArray(endpoint['addresses']) ? (endpoint['addresses'] as unknown[]) : [];
    const at = `endpoints[${i}].addresses`;
    if (addresses.length === 0)
      causes.push({ reason: 'FieldValueRequired', field: at, message: 'Required value: must contain at least 1 address' });
    else if (addresses.length > 100)
      causes.push({ reason: 'FieldValueTooMany', field: at, message: `Too many: ${addresses.length}: must have at most 100 items` });
    addresses.forEach((address, j) => causes.push(...addressCauses(address, type, `${at}[${j}]`)));
  });
  return causes;
}
