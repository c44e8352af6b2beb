// TokenReview (authentication.k8s.io/v1), as kube-apiserver's pkg/registry/authentication/
// tokenreview answers it: the server authenticates `spec.token` as if a request carried it and
// says who that is. Webhook token authenticators and servers that delegate authentication (the
// secure metrics server of controller-runtime and kindex, kube-rbac-proxy) send it.
//
// What the real server does, and this one with it:
// - 201 with the review echoed back and `status` filled, whether or not the token is good; 400
//   without a token.
// - A good token: `authenticated: true`, the user (username, uid, groups, extra) and the
//   audiences it was checked against.
// - A bad one (forged, expired, its ServiceAccount deleted): `authenticated` left out, `user: {}`
//   and an `error` saying why: `invalid bearer token` alone for a token no authenticator knows,
//   `[invalid bearer token, <reason>]` when one recognised it and refused it. (The real server's
//   tokens are JWTs, and a tampered signature reads `go-jose/go-jose: error in cryptographic
//   primitive`; this server's tokens are opaque, so a tampered one is simply unknown.)
// - Audiences: `spec.audiences`, or the API server's own (`--api-audiences`, which defaults to
//   the service-account issuer). A ServiceAccount token is good only for an audience it was
//   issued for; a static token is good for any.
import type { Json } from '../storage/object-store.js';
import type { UserInfo } from './request-attributes.js';
import type { JsonResponse } from '../machinery/json-response.js';
import { badRequest } from '../storage/status-error.js';

/** The API server's audience: the real test server's `--service-account-issuer`, which `--api-audiences` defaults to. */
export const API_AUDIENCE = 'https://kubernetes.default.svc.cluster.local';

/**
 * Who a token authenticates as, and for which audiences (undefined: any, as a static token); or,
 * for a token that was issued and is no longer good, why (kube-apiserver's words).
 */
export type TokenOwner = { readonly user: UserInfo; readonly audiences: readonly string[] | undefined } | { readonly rejected: string };

/** kube-apiserver's bearer-token authenticator's error when no authenticator accepts a token. */
const INVALID = 'invalid bearer token';

/** The answer to a TokenReview with this `spec`, given how the server resolves a token to its owner. */
export function tokenReview(spec: Json, ownerOf: (token: string) => TokenOwner | undefined): JsonResponse {
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (token === '') throw badRequest('token is required for TokenReview in authentication');
  const requested = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? (spec.audiences as string[]) : [API_AUDIENCE];
  const owner = ownerOf(token);
  let status: Json;
  if (owner === undefined) status = { user: {}, error: INVALID };
  else if ('rejected' in owner) status = { user: {}, error: `[${INVALID}, ${owner.rejected}]` };
  else {
    const audiences = owner.audiences === undefined ? requested : requested.filter((a) => owner.audiences!.includes(a));
    if (audiences.length === 0) {
      status = {
        user: {},
        error: `[${INVALID}, token audiences ${goQuoted(owner.audiences!)} is invalid for the target audiences ${goQuoted(requested)}]`,
      };
    } else {
      const { user } = owner;
      status = {
        authenticated: true,
        user: {
          username: user.username,
          ...(user.uid === undefined || user.uid === '' ? {} : { uid: user.uid }),
          groups: user.groups,
          ...(user.extra === undefined ? {} : { extra: user.extra }),
        },
        audiences,
      };
    }
  }
  const echoed: Json = { token, ...(Array.isArray(spec.audiences) && spec.audiences.length > 0 ? { audiences: spec.audiences } : {}) };
  return {
    status: 201,
    body: JSON.stringify({
      kind: 'TokenReview',
      apiVersion: 'authentication.k8s.io/v1',
      // kube-apiserver 1.36 leaves creationTimestamp out (and adds managedFields, not modelled here).
      metadata: {},
      spec: echoed,
      status,
    }),
  };
}

/** A string list as Go's `%q` prints a []string: `["a" "b"]`. */
function goQuoted(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}
