// The `authorizer` variable of admission webhook matchConditions: Kubernetes' CEL authz library
// (k8s.io/apiserver/pkg/cel/library/authz.go) over the embedded server's own authorization (RBAC
// when enforced, everything allowed otherwise), so a condition can ask what the requesting user
// may do:
//
//   authorizer.group('apps').resource('deployments').namespace('web').check('delete').allowed()
//   authorizer.requestResource.subresource('status').check('update').allowed()
//   authorizer.path('/healthz').check('get').allowed()
//   authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('create').reason()
//
// Checks are made for the API version '*', as the library makes them. Field and label selectors
// are accepted and passed over, as RBAC does.

import { kubernetesCelEnvironment } from '@kindex/core/internal';
import type { RequestAttributes, UserInfo } from '../filters/request-attributes.js';

/** Decides one request's attributes (the server's RBAC evaluation). */
export type AuthorizeFunction = (attributes: RequestAttributes) => { readonly allowed: boolean; readonly reason: string };

/** kubernetes.authorization.Authorizer: checks made as one user. */
export class CelAuthorizer {
  constructor(
    readonly user: UserInfo,
    readonly authorize: AuthorizeFunction,
    /** `authorizer.requestResource`: a check of the request's own resource. */
    readonly requestResource?: CelResourceCheck,
  ) {}
}

/** kubernetes.authorization.PathCheck: a non-resource URL to check a verb on. */
export class CelPathCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly path: string,
  ) {}
}

/** kubernetes.authorization.GroupCheck: an API group whose resources are to be checked. */
export class CelGroupCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
  ) {}
}

/** kubernetes.authorization.ResourceCheck: a resource (and where) to check a verb on. */
export class CelResourceCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
    readonly resource: string,
    readonly subresource = '',
    readonly namespace = '',
    readonly name = '',
  ) {}

  with(change: Partial<Pick<CelResourceCheck, 'subresource' | 'namespace' | 'name'>>): CelResourceCheck {
    const next = { ...this, ...change };
    return new CelResourceCheck(this.authorizer, this.group, this.resource, next.subresource, next.namespace, next.name);
  }
}

/** kubernetes.authorization.Decision: what the authorizer answered. */
export class CelDecision {
  constructor(
    readonly allowed: boolean,
    readonly reason: string,
    readonly error = '',
  ) {}
}

function decide(authorizer: CelAuthorizer, attributes: Omit<RequestAttributes, 'user'>): CelDecision {
  const decision = authorizer.authorize({ ...attributes, user: authorizer.user });
  return new CelDecision(decision.allowed, decision.reason);
}

// Validation of a ServiceAccount's name and namespace, as the library's serviceAccount() does
// (DNS-1123 subdomain and label).
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function serviceAccount(a: CelAuthorizer, namespace: string, name: string): CelAuthorizer {
  if (name.length > 253 || !SUBDOMAIN.test(name)) throw new Error('Invalid service account name');
  if (namespace.length > 63 || !LABEL.test(namespace)) throw new Error('Invalid service account namespace');
  const user = {
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
  };
  return new CelAuthorizer(user, a.authorize);
}

function notEmpty(what: string, value: string): string {
  if (value.trim() === '') throw new Error(`${what} must not be empty`);
  return value;
}

/** The CEL environment of matchConditions: the server's libraries plus `authorizer`. */
export const matchConditionEnvironment = kubernetesCelEnvironment()
  .registerType('kubernetes.authorization.ResourceCheck', CelResourceCheck)
  .registerType('kubernetes.authorization.Authorizer', {
    ctor: CelAuthorizer,
    fields: { requestResource: 'kubernetes.authorization.ResourceCheck' },
  } as never)
  .registerType('kubernetes.authorization.PathCheck', CelPathCheck)
  .registerType('kubernetes.authorization.GroupCheck', CelGroupCheck)
  .registerType('kubernetes.authorization.Decision', CelDecision)
  .registerVariable('authorizer', 'kubernetes.authorization.Authorizer')
  .registerFunction(
    'kubernetes.authorization.Authorizer.path(string): kubernetes.authorization.PathCheck',
    (a: CelAuthorizer, path: string) => new CelPathCheck(a, notEmpty('path', path)),
  )
  .registerFunction(
    'kubernetes.authorization.Authorizer.group(string): kubernetes.authorization.GroupCheck',
    (a: CelAuthorizer, group: string) => new CelGroupCheck(a, group),
  )
  .registerFunction(
    'kubernetes.authorization.Authorizer.serviceAccount(string, string): kubernetes.authorization.Authorizer',
    serviceAccount,
  )
  .registerFunction(
    'kubernetes.authorization.GroupCheck.resource(string): kubernetes.authorization.ResourceCheck',
    (g: CelGroupCheck, resource: string) => new CelResourceCheck(g.authorizer, g.group, notEmpty('resource', resource)),
  )
  .registerFunction(
    'kubernetes.authorization.ResourceCheck.subresource(string): kubernetes.authorization.ResourceCheck',
    (r: CelResourceCheck, subresource: string) => r.with({ subresource }),
  )
  .registerFunction(
    'kubernetes.authorization.ResourceCheck.namespace(string): kubernetes.authorization.ResourceCheck',
    (r: CelResourceCheck, namespace: string) => r.with({ namespace }),
  )
  .registerFunction(
    'kubernetes.authorization.ResourceCheck.name(string): kubernetes.authorization.ResourceCheck',
    (r: CelResourceCheck, name: string) => r.with({ name }),
  )
  // RBAC does not look at selectors: the check is made as without them.
  .registerFunction(
    'kubernetes.authorization.ResourceCheck.fieldSelector(string): kubernetes.authorization.ResourceCheck',
    (r: CelResourceCheck) => r,
  )
  .registerFunction(
    'kubernetes.authorization.ResourceCheck.labelSelector(string): kubernetes.authorization.ResourceCheck',
    (r: CelResourceCheck) => r,
  )
  .registerFunction(
    'kubernetes.authorization.ResourceCheck.check(string): kubernetes.authorization.Decision',
    (r: CelResourceCheck, verb: string) =>
      decide(r.authorizer, {
        verb,
        resource: { group: r.group, resource: r.resource, subresource: r.subresource, namespace: r.namespace, name: r.name },
        path: '',
      }),
  )
  .registerFunction(
    'kubernetes.authorization.PathCheck.check(string): kubernetes.authorization.Decision',
    (p: CelPathCheck, verb: string) => decide(p.authorizer, { verb, resource: undefined, path: p.path }),
  )
  .registerFunction('kubernetes.authorization.Decision.allowed(): bool', (d: CelDecision) => d.allowed)
  .registerFunction('kubernetes.authorization.Decision.reason(): string', (d: CelDecision) => d.reason)
  .registerFunction('kubernetes.authorization.Decision.errored(): bool', (d: CelDecision) => d.error !== '')
  .registerFunction('kubernetes.authorization.Decision.error(): string', (d: CelDecision) => d.error);

/** What a request's `authorizer` holds: the requesting user, and a check of the request's resource. */
export interface RequestedResource {
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** The `authorizer` value of one request's conditions. */
export function requestAuthorizer(user: UserInfo, authorize: AuthorizeFunction, requested: RequestedResource): CelAuthorizer {
  const plain = new CelAuthorizer(user, authorize);
  const { group, resource, subresource, namespace, name } = requested;
  return new CelAuthorizer(user, authorize, new CelResourceCheck(plain, group, resource, subresource, namespace, name));
}
