// Who asks for what: the attributes kube-apiserver's authorizers decide on (k8s.io/apiserver's
// authorizer.Attributes, built from the URL as its RequestInfoFactory does), and the 403 it
// answers with (responsewriters.Forbidden), byte for byte.
import { FieldSelector } from '@kindex/core/internal';
import type { Route } from './router.js';
import { ApiStatusError, qualifiedResource } from '../storage/status-error.js';

/** An authenticated (or anonymous) identity, as kube-apiserver's user.Info. */
export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** What a request does to which resource (or which non-resource path). */
export interface RequestAttributes {
  readonly user: UserInfo;
  readonly verb: string;
  /** Set for resource requests; undefined for non-resource paths such as `/apis`. */
  readonly resource:
    | {
        readonly group: string;
        readonly resource: string;
        readonly subresource: string;
        readonly namespace: string;
        readonly name: string;
      }
    | undefined;
  /** The URL path, for non-resource requests. */
  readonly path: string;
}

/** The attributes of a resource request, derived from its route, method and query as kube-apiserver does. */
export function resourceAttributes(
  user: UserInfo,
  r: Extract<Route, { kind: 'resource' }>,
  method: string,
  query: URLSearchParams,
  path: string,
): RequestAttributes {
  const watch = query.get('watch');
  const collection = r.name === undefined;
  let verb: string;
  switch (method) {
    case 'GET':
    case 'HEAD':
      verb = watch === 'true' || watch === '1' ? 'watch' : collection ? 'list' : 'get';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = collection ? 'deletecollection' : 'delete';
      break;
    default:
      verb = method.toLowerCase();
  }
  let name = r.name ?? '';
  // A list or watch of one object by field selector is authorized as that object (client-go's
  // single-object informers rely on a Role with resourceNames).
  if (collection && (verb === 'list' || verb === 'watch')) name = exactName(query.get('fieldSelector')) ?? '';
  // A Namespace is its own namespace: a RoleBinding there may grant reading it.
  const namespace = r.namespace ?? (r.group === '' && r.resource === 'namespaces' ? name : '');
  return {
    user,
    verb,
    resource: { group: r.group, resource: r.resource, subresource: r.subresource ?? '', namespace, name },
    path,
  };
}

// As kube-apiserver's RequestInfo reads it: fields.ParseSelector (values unescaped, no spaces
// trimmed), then RequiresExactMatch("metadata.name"), kept only if the name is a valid path segment.
// A selector that does not parse names nothing.
function exactName(fieldSelector: string | null): string | undefined {
  if (fieldSelector === null) return undefined;
  let selector: FieldSelector;
  try {
    selector = FieldSelector.parse(fieldSelector);
  } catch {
    return undefined;
  }
  const name = selector.requirements.find((r) => r.field === 'metadata.name' && r.operator === '=')?.value;
  // path.IsValidPathSegmentName
  if (name === undefined || name === '.' || name === '..' || name.includes('/') || name.includes('%')) return undefined;
  return name;
}

/** kube-apiserver's 403 for a refused request: message, reason and details as it writes them. */
export function forbidden(a: RequestAttributes, reason = ''): ApiStatusError {
  const who = `User ${JSON.stringify(a.user.username)}`;
  const r = a.resource;
  let message: string;
  if (r === undefined) {
    message = `${who} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  } else {
    const resource = r.subresource === '' ? r.resource : `${r.resource}/${r.subresource}`;
    const scope = r.namespace === '' ? 'at the cluster scope' : `in the namespace ${JSON.stringify(r.namespace)}`;
    message = `${who} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(r.group)} ${scope}`;
  }
  if (reason !== '') message = `${message}: ${reason}`;
  if (r === undefined) return new ApiStatusError(403, 'Forbidden', `forbidden: ${message}`, { name: '', group: '', kind: '' });
  const qualified = qualifiedResource(r.resource, r.group);
  const subject = r.name === '' ? qualified : `${qualified} ${JSON.stringify(r.name)}`;
  return new ApiStatusError(403, 'Forbidden', `${subject} is forbidden: ${message}`, { name: r.name, group: r.group, kind: r.resource });
}
