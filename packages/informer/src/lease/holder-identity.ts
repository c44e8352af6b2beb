import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * @internal The name a replica writes in `holderIdentity` unless told otherwise: `$POD_NAME` (or
 * the hostname) plus `_` and a random suffix. The suffix keeps a restarted pod with the same name
 * from mistaking its predecessor's lease for its own and renewing it without waiting it out.
 */
export function defaultHolderIdentity(): string {
  const base = process.env['POD_NAME'] || hostname();
  return `${base}_${randomUUID().slice(0, 8)}`;
}

/**
 * @internal Throws `configError` unless `identity` is a non-empty string: two holders with one
 * name would each take the other's renewals for their own.
 */
export function checkHolderIdentity(identity: unknown, configError: (field: string, value: unknown, fix: string) => Error): void {
  if (typeof identity !== 'string' || identity === '') {
    throw configError('identity', identity, 'give a non-empty identity, unique per replica (e.g. the pod name)');
  }
}
