import { randomBytes } from 'node:crypto';

// Kubernetes names of namespaces and most kinds must be DNS-1123 labels: at most 63 characters of
// [a-z0-9-], starting and ending with an alphanumeric.
const MAX_LENGTH = 63;
let counter = 0;

/**
 * Returns a DNS-1123 label, unique per call (also across processes and across test runs against
 * the same server), starting with the sanitized `prefix`, for example `cm-k3f9a1-7`.
 *
 * @example
 * ```ts
 * import { uniqueName } from '@kindex/testing';
 * const name = uniqueName('config');
 * ```
 */
export function uniqueName(prefix = 'kx'): string {
  counter++;
  const suffix = `${randomBytes(3).toString('hex')}${process.pid.toString(36)}-${counter.toString(36)}`;
  let head = prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, MAX_LENGTH - suffix.length - 1)
    .replace(/-+$/, '');
  if (head === '') head = 'kx';
  return `${head}-${suffix}`;
}
