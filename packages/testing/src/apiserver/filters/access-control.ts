// Authentication and authorization of the embedded server, as kube-apiserver's filter chain runs
// them: who sent the request (the admin token, a ServiceAccount token from a TokenRequest, a
// user token, or nobody), whom it impersonates (Impersonate-* headers, each checked with the
// `impersonate` verb), and whether RBAC lets that identity do it. Also the APIs built on that:
// TokenRequest (`serviceaccounts/<name>/token`) and the access and identity reviews behind
// `kubectl auth can-i` and `kubectl auth whoami`.
import type http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { BOOTSTRAP_POLICY } from './bootstrap-policy.js';
import { escalationMessage, missingRights, onlyGarbageCollectorFieldsChange } from './escalation-check.js';
import type { Json, ObjectStore } from '../storage/object-store.js';
import { RbacAuthorizer, type Decision, type PolicyRule } from './rbac-authorizer.js';
import { forbidden, resourceAttributes, type RequestAttributes, type UserInfo } from './request-attributes.js';
import { API_AUDIENCE, tokenReview, type TokenOwner } from './token-review.js';
import { validateSubjectAccessReviewSpec } from './subject-access-review.js';
import type { JsonResponse } from '../machinery/json-response.js';
import type { Route } from './router.js';
import { ApiStatusError, badRequest, invalid, methodNotAllowed, notFound, qualifiedResource } from '../storage/status-error.js';

/** The user of the server's own kubeconfig: as the real test server's token file, a member of system:masters. */
export const ADMIN_USER: UserInfo = { username: 'kindex-admin', uid: 'kindex-admin', groups: ['system:masters', 'system:authenticated'] };
const ANONYMOUS: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
const MASTERS = 'system:masters';
const RBAC_GROUP = 'rbac.authorization.k8s.io';
const AUTHENTICATED = 'system:authenticated';
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** A token's identity: a fixed user, or a ServiceAccount that must still exist (same uid) and a deadline. */
type TokenIdentity =
  | { readonly kind: 'user'; readonly user: UserInfo }
  | {
      readonly kind: 'serviceAccount';
      readonly user: UserInfo;
      readonly key: string;
      readonly uid: string;
      readonly expiresAt: number;
      readonly audiences: readonly string[];
    };

/** Who may do what on the embedded server; see the file comment. */
export class AccessControl {
  /** Whether RBAC is enforced; when false every authenticated identity may do everything. */
  readonly enforce: boolean;
  readonly #store: ObjectStore;
  readonly #rbac: RbacAuthorizer;
  readonly #tokens = new Map<string, TokenIdentity>();

  constructor(store: ObjectStore, enforce: boolean) {
    this.#store = store;
    this.enforce = enforce;
    this.#rbac = new RbacAuthorizer(store);
  }

  /** The bootstrap ClusterRoles and bindings, created at start as kube-apiserver does. */
  get bootstrapPolicy(): readonly Json[] {
    return BOOTSTRAP_POLICY;
  }

  /** A bearer token for `user` (groups get `system:authenticated` added, as any authenticator does). */
  addUserToken(user: UserInfo): string {
    if (user.username === '')
      throw new Error("userKubeConfig: user.username is empty; give the user a name, for example { username: 'alice' }");
    const token = randomBytes(24).toString('base64url');
    const groups = user.groups.includes(AUTHENTICATED) ? user.groups : [...user.groups, AUTHENTICATED];
    this.#tokens.set(token, { kind: 'user', user: { ...user, groups } });
    return token;
  }

  /**
   * The identity of a request: `admin` when the caller already recognised the admin credentials.
   * A bearer token nobody issued is 401; no credentials at all is system:anonymous when RBAC is
   * enforced (kube-apiserver's --anonymous-auth default, so authorization refuses it with 403),
   * 401 otherwise (as before RBAC existed here).
   */
  authenticate(req: http.IncomingMessage, admin: boolean, r: Route | undefined, url: URL): UserInfo {
    const user = admin ? ADMIN_USER : this.#byToken(req.headers.authorization);
    return this.#impersonated(req, user, (verb) => attributesOf(user, r, req.method ?? 'GET', url, verb));
  }

  #byToken(authorization: string | undefined): UserInfo {
    if (authorization === undefined || !authorization.startsWith('Bearer ')) {
      if (this.enforce && authorization === undefined) return ANONYMOUS;
      throw unauthorized();
    }
    const owner = this.tokenOwner(authorization.slice('Bearer '.length).trim());
    if (owner === undefined || 'rejected' in owner) throw unauthorized();
    return owner.user;
  }

  /**
   * Who a bearer token authenticates as (and for which audiences); why an issued token is no
   * longer good; undefined for a token never issued. What TokenReview answers, too.
   */
  tokenOwner(token: string): TokenOwner | undefined {
    const identity = this.#tokens.get(token);
    if (identity === undefined) return undefined;
    if (identity.kind === 'user') return { user: identity.user, audiences: undefined };
    // A deleted (or deleted and recreated) ServiceAccount's tokens stop working, as bound tokens
    // do; the reasons are kube-apiserver's service-account token authenticator's.
    const account = this.#store.get('/serviceaccounts', identity.key);
    if (account === undefined) return { rejected: `serviceaccounts ${JSON.stringify(identity.key.split('/')[1])} not found` };
    const uid = (account.obj.metadata as { uid?: string }).uid;
    if (uid !== identity.uid) return { rejected: `service account UID (${uid}) does not match claim (${identity.uid})` };
    if (Date.now() > identity.expiresAt) return { rejected: 'go-jose/go-jose/jwt: validation failed, token is expired (exp)' };
    return { user: identity.user, audiences: identity.audiences };
  }

  // k8s.io/apiserver/pkg/endpoints/filters/impersonation.go.
  // A refusal names the constrained-impersonation check of kube-apiserver 1.36 (KEP-5284):
  // `impersonate-on:<mode>:<verb>` on the request's own resource, the last one it tried.
  #impersonated(req: http.IncomingMessage, user: UserInfo, request: (verbPrefix: string) => RequestAttributes): UserInfo {
    const headers = req.headersDistinct;
    const username = headers['impersonate-user']?.[0];
    const groups = headers['impersonate-group'] ?? [];
    const uid = headers['impersonate-uid']?.[0];
    const extra: Record<string, string[]> = {};
    for (const [name, values] of Object.entries(headers)) {
      if (name.startsWith('impersonate-extra-') && values !== undefined) {
        extra[decodeURIComponent(name.slice('impersonate-extra-'.length))] = values;
      }
    }
    if (username === undefined) {
      if (groups.length > 0 || uid !== undefined || Object.keys(extra).length > 0) {
        throw badRequest('requested impersonation of groups, extra or uid without impersonating a user');
      }
      return user;
    }
    const asAccount = username.startsWith(SERVICE_ACCOUNT_PREFIX) ? username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':') : undefined;
    const mode = asAccount?.length === 2 ? 'serviceaccount' : 'user-info';
    const check = (resource: RequestAttributes['resource']): void => {
      if (!this.decide({ user, verb: 'impersonate', resource, path: '' }).allowed) throw forbidden(request(`impersonate-on:${mode}:`));
    };
    if (asAccount?.length === 2) {
      check({ group: '', resource: 'serviceaccounts', subresource: '', namespace: asAccount[0]!, name: asAccount[1]! });
    } else {
      check({ group: '', resource: 'users', subresource: '', namespace: '', name: username });
    }
    for (const g of groups) check({ group: '', resource: 'groups', subresource: '', namespace: '', name: g });
    for (const [key, values] of Object.entries(extra)) {
      for (const v of values) check({ group: 'authentication.k8s.io', resource: 'userextras', subresource: key, namespace: '', name: v });
    }
    if (uid !== undefined) check({ group: 'authentication.k8s.io', resource: 'uids', subresource: '', namespace: '', name: uid });
    const impersonatedGroups = [...groups];
    if (asAccount?.length === 2 && groups.length === 0) {
      impersonatedGroups.push('system:serviceaccounts', `system:serviceaccounts:${asAccount[0]!}`);
    }
    if (username === ANONYMOUS.username) {
      if (!impersonatedGroups.includes('system:unauthenticated')) impersonatedGroups.push('system:unauthenticated');
    } else if (!impersonatedGroups.includes(AUTHENTICATED)) impersonatedGroups.push(AUTHENTICATED);
    return {
      username,
      ...(uid === undefined ? {} : { uid }),
      groups: impersonatedGroups,
      ...(Object.keys(extra).length === 0 ? {} : { extra }),
    };
  }

  /** RBAC's decision, after kube-apiserver's system:masters short cut; everything is allowed when not enforcing. */
  decide(a: RequestAttributes): Decision {
    if (!this.enforce || a.user.groups.includes(MASTERS)) return { allowed: true, reason: '' };
    return this.#rbac.authorize(a);
  }

  /** Refuses (403, kube-apiserver's wording) a request RBAC does not allow. */
  authorize(user: UserInfo, r: Route | undefined, method: string, url: URL): void {
    if (!this.enforce) return;
    const a = attributesOf(user, r, method, url, '');
    if (!this.decide(a).allowed) throw forbidden(a);
  }

  /**
   * Answers the requests this file implements (TokenRequest and the reviews), or undefined for
   * every other route. Called after authorization, with the decoded body.
   */
  serve(r: Extract<Route, { kind: 'resource' }>, method: string, body: () => unknown, user: UserInfo): JsonResponse | undefined {
    // The body is decoded only for the requests answered here: every other request's options are
    // validated before its body is read, as kube-apiserver does, and decoded once.
    const review = REVIEWS[`${r.group}/${r.resource}`];
    const isTokenRequest = r.group === '' && r.resource === 'serviceaccounts' && r.subresource === 'token';
    if (review === undefined && !isTokenRequest) return undefined;
    if (method !== 'POST' || (review !== undefined && r.name !== undefined)) throw methodNotAllowed();
    const spec = ((body() as Json | undefined)?.spec ?? {}) as Json;
    if (isTokenRequest) return this.#tokenRequest(r.namespace ?? '', r.name ?? '', spec);
    const created = (status: Json, extra: Json = {}): JsonResponse => ({
      status: 201,
      body: JSON.stringify({ kind: review!.kind, apiVersion: `${r.group}/v1`, metadata: { creationTimestamp: null }, ...extra, status }),
    });
    switch (review!.kind) {
      case 'TokenReview':
        return tokenReview(spec, (token) => this.tokenOwner(token));
      case 'SelfSubjectReview':
        return created({ userInfo: userInfoJson(user) });
      case 'SelfSubjectAccessReview':
        return created(this.#accessReview(user, spec), { spec });
      case 'SubjectAccessReview': {
        validateSubjectAccessReviewSpec(spec);
        const subject: UserInfo = {
          username: (spec.user as string | undefined) ?? '',
          groups: (spec.groups as string[] | undefined) ?? [],
          ...(spec.uid === undefined ? {} : { uid: spec.uid as string }),
        };
        return created(this.#accessReview(subject, spec), { spec });
      }
      default:
        return created(this.#rulesReview(user, (spec.namespace as string | undefined) ?? ''), { spec });
    }
  }

  /**
   * The escalation check of a write by `user` to a Role, ClusterRole or binding, for the resource
   * handler to run on the object about to be written: a create's or PUT's body, the result of a
   * patch (merge, strategic, JSON) or of an apply, as kube-apiserver's RBAC storage checks the
   * updated object. Undefined for every other request.
   */
  escalationCheck(r: Extract<Route, { kind: 'resource' }>, user: UserInfo): ((next: Json, old: Json | undefined) => void) | undefined {
    if (!this.enforce || r.group !== RBAC_GROUP || r.subresource !== undefined || !ESCALATION_CHECKED.has(r.resource)) return undefined;
    return (next, old) => {
      // What the garbage collector writes (owners, finalizers) must pass whatever the role grants.
      if (old !== undefined && onlyGarbageCollectorFieldsChange(next, old)) return;
      this.#preventEscalation(r, next, user);
    };
  }

  // Refuses (403) a Role, ClusterRole or binding that grants more than its author holds, unless the
  // author may `escalate` the role or `bind` the role referenced.
  #preventEscalation(r: Extract<Route, { kind: 'resource' }>, body: Json, user: UserInfo): void {
    const namespace = r.namespace ?? '';
    const name = (body.metadata as { name?: string } | undefined)?.name ?? r.name ?? '';
    const may = (verb: string, resource: string, objectName: string): boolean =>
      this.decide({ user, verb, resource: { group: RBAC_GROUP, resource, subresource: '', namespace, name: objectName }, path: '' })
        .allowed;
    let requested: readonly PolicyRule[];
    if (r.resource === 'roles' || r.resource === 'clusterroles') {
      if (may('escalate', r.resource, name)) return;
      requested = (body.rules ?? []) as PolicyRule[];
    } else if (r.resource === 'rolebindings' || r.resource === 'clusterrolebindings') {
      const ref = (body.roleRef ?? {}) as { kind?: string; name?: string };
      const refResource = ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
      if (may('bind', refResource, ref.name ?? '')) return;
      requested = this.#rbac.roleRefRules(ref.kind ?? '', ref.name ?? '', namespace);
    } else return;
    const missing = missingRights(this.#rbac.rulesFor(user, namespace), requested);
    if (missing.length === 0) return;
    throw new ApiStatusError(
      403,
      'Forbidden',
      `${qualifiedResource(r.resource, RBAC_GROUP)} ${JSON.stringify(name)} is forbidden: ${escalationMessage(user, missing)}`,
      { name, group: RBAC_GROUP, kind: r.resource },
    );
  }

  #accessReview(user: UserInfo, spec: Json): Json {
    const resource = spec.resourceAttributes as Record<string, string> | undefined;
    const nonResource = spec.nonResourceAttributes as Record<string, string> | undefined;
    if (resource === undefined && nonResource === undefined) {
      throw invalid('SubjectAccessReview', 'authorization.k8s.io', '', [
        {
          reason: 'FieldValueRequired',
          message: 'Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified',
          field: 'spec.resourceAttributes',
        },
      ]);
    }
    const a: RequestAttributes =
      resource !== undefined
        ? {
            user,
            verb: resource.verb ?? '',
            resource: {
              group: resource.group ?? '',
              resource: resource.resource ?? '',
              subresource: resource.subresource ?? '',
              namespace: resource.namespace ?? '',
              name: resource.name ?? '',
            },
            path: '',
          }
        : { user, verb: nonResource!.verb ?? '', resource: undefined, path: nonResource!.path ?? '' };
    const decision = this.decide(a);
    return decision.reason === '' ? { allowed: decision.allowed } : { allowed: decision.allowed, reason: decision.reason };
  }

  #rulesReview(user: UserInfo, namespace: string): Json {
    const rules: PolicyRule[] = this.enforce
      ? user.groups.includes(MASTERS)
        ? [...(BOOTSTRAP_POLICY[0]!.rules as PolicyRule[]), ...this.#rbac.rulesFor(user, namespace)]
        : this.#rbac.rulesFor(user, namespace)
      : [
          { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
          { nonResourceURLs: ['*'], verbs: ['*'] },
        ];
    const resourceRules = rules
      .filter((rule) => (rule.nonResourceURLs ?? []).length === 0)
      .map((rule) => ({
        verbs: rule.verbs,
        ...(rule.apiGroups === undefined ? {} : { apiGroups: rule.apiGroups }),
        ...(rule.resources === undefined ? {} : { resources: rule.resources }),
        ...(rule.resourceNames === undefined ? {} : { resourceNames: rule.resourceNames }),
      }));
    const nonResourceRules = rules
      .filter((rule) => (rule.nonResourceURLs ?? []).length > 0)
      .map((rule) => ({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs }));
    return { resourceRules, nonResourceRules, incomplete: false };
  }

  // TokenRequest: a token for an existing ServiceAccount, valid while it exists, as the real
  // server's bound tokens are.
  #tokenRequest(namespace: string, name: string, spec: Json): JsonResponse {
    const key = `${namespace}/${name}`;
    const account = this.#store.get('/serviceaccounts', key);
    if (account === undefined) throw notFound('serviceaccounts', '', name);
    const seconds = (spec.expirationSeconds as number | undefined) ?? 3600;
    if (!Number.isInteger(seconds) || seconds < 600) {
      throw invalid('TokenRequest', 'authentication.k8s.io', name, [
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${seconds}: may not specify a duration less than 10 minutes`,
          field: 'spec.expirationSeconds',
        },
      ]);
    }
    const uid = (account.obj.metadata as { uid: string }).uid;
    const token = randomBytes(32).toString('base64url');
    const expiresAt = Date.now() + seconds * 1000;
    const user: UserInfo = {
      username: `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`,
      uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, AUTHENTICATED],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${randomUUID()}`] },
    };
    const audiences = (spec.audiences as string[] | undefined) ?? [];
    this.#tokens.set(token, {
      kind: 'serviceAccount',
      user,
      key,
      uid,
      expiresAt,
      audiences: audiences.length > 0 ? audiences : [API_AUDIENCE],
    });
    const expirationTimestamp = new Date(Math.floor(expiresAt / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    return {
      status: 201,
      body: JSON.stringify({
        kind: 'TokenRequest',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { name, namespace, creationTimestamp: null },
        spec: { audiences: (spec.audiences as string[] | undefined) ?? [], expirationSeconds: seconds, boundObjectRef: null },
        status: { token, expirationTimestamp },
      }),
    };
  }
}

function attributesOf(user: UserInfo, r: Route | undefined, method: string, url: URL, verbPrefix: string): RequestAttributes {
  const a: RequestAttributes =
    r?.kind === 'resource'
      ? resourceAttributes(user, r, method, url.searchParams, url.pathname)
      : { user, verb: method === 'HEAD' ? 'get' : method.toLowerCase(), resource: undefined, path: url.pathname };
  return verbPrefix === '' ? a : { ...a, verb: `${verbPrefix}${a.verb}` };
}

const ESCALATION_CHECKED = new Set(['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings']);

const REVIEWS: Record<string, { kind: string } | undefined> = {
  'authentication.k8s.io/selfsubjectreviews': { kind: 'SelfSubjectReview' },
  'authentication.k8s.io/tokenreviews': { kind: 'TokenReview' },
  'authorization.k8s.io/selfsubjectaccessreviews': { kind: 'SelfSubjectAccessReview' },
  'authorization.k8s.io/subjectaccessreviews': { kind: 'SubjectAccessReview' },
  'authorization.k8s.io/selfsubjectrulesreviews': { kind: 'SelfSubjectRulesReview' },
};

function userInfoJson(user: UserInfo): Json {
  return {
    username: user.username,
    ...(user.uid === undefined ? {} : { uid: user.uid }),
    groups: user.groups,
    ...(user.extra === undefined ? {} : { extra: user.extra }),
  };
}

function unauthorized(): ApiStatusError {
  return new ApiStatusError(401, 'Unauthorized', 'Unauthorized');
}
