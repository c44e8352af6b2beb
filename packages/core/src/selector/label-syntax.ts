// Validation of label keys and values, shared by the label selector and by servers that validate
// metadata.labels. The rules and messages are those of k8s.io/apimachinery/pkg/util/validation,
// because a selector the real apiserver rejects must be rejected here too.

const NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const NAME_FMT_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_FMT_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const SUBDOMAIN_FMT_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/**
 * Problems with a qualified name (`[prefix/]name`), empty when valid.
 *
 * @example
 * ```ts
 * import { qualifiedNameErrors } from '@kindex/core/internal';
 *
 * // Validate a label key from a custom resource's spec before using it.
 * const problems = qualifiedNameErrors('example.com/team');
 * if (problems.length > 0) throw new Error(`spec.teamLabel: ${problems.join('; ')}`);
 * ```
 */
export function qualifiedNameErrors(key: string): string[] {
  const errs: string[] = [];
  const parts = key.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) {
      errs.push('prefix part must be non-empty');
    } else {
      if (prefix.length > 253) errs.push('prefix part must be no more than 253 characters');
      if (!DNS1123_SUBDOMAIN_RE.test(prefix)) errs.push(`prefix part ${SUBDOMAIN_FMT_MSG}`);
    }
  } else {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (name.length > 0 && !NAME_RE.test(name)) errs.push(NAME_FMT_MSG);
  return errs;
}

/**
 * Problems with a label value, empty when valid.
 *
 * @example
 * ```ts
 * import { labelValueErrors } from '@kindex/core/internal';
 * declare const teamName: string;
 *
 * // A label value must be at most 63 characters of [A-Za-z0-9_.-].
 * const problems = labelValueErrors(teamName);
 * ```
 */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (value.length > 0 && !NAME_RE.test(value)) errs.push(VALUE_FMT_MSG);
  return errs;
}

/**
 * Problems with a DNS-1123 subdomain (most object names), empty when valid.
 *
 * @example
 * ```ts
 * import { dnsSubdomainErrors } from '@kindex/core/internal';
 *
 * // Check a name before creating the object it names, for a clear error in the primary's status.
 * const problems = dnsSubdomainErrors('web-config.v2');
 * ```
 */
export function dnsSubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN_RE.test(value)) errs.push(SUBDOMAIN_FMT_MSG);
  return errs;
}
