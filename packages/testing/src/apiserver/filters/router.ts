// Parses request paths into what they address: discovery documents or a resource (collection,
// object or subresource) in the /api/v1 and /apis/<group>/<version> trees.

/** What a request path addresses. */
export type Route =
  | { readonly kind: 'version' | 'api' | 'apis' | 'openapi' | 'metrics' }
  | { readonly kind: 'health'; readonly endpoint: 'healthz' | 'livez' | 'readyz'; readonly check: string | undefined }
  | { readonly kind: 'group'; readonly group: string }
  | { readonly kind: 'resources'; readonly group: string; readonly version: string }
  | {
      readonly kind: 'resource';
      readonly group: string;
      readonly version: string;
      readonly resource: string;
      readonly namespace: string | undefined;
      readonly name: string | undefined;
      readonly subresource: string | undefined;
    };

/** The route of a URL path, or undefined when nothing lives there. */
export function route(pathname: string): Route | undefined {
  const raw = pathname.split('/').filter((s, i) => i > 0 || s !== '');
  if (raw.length > 0 && raw[raw.length - 1] === '') raw.pop();
  let parts: string[];
  try {
    parts = raw.map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
  if (parts.length === 0) return undefined;
  const [root, ...rest] = parts;
  switch (root) {
    case 'version':
      return rest.length === 0 ? { kind: 'version' } : undefined;
    case 'healthz':
    case 'readyz':
    case 'livez':
      // One check per path segment below the endpoint (`/healthz/poststarthook/x` names one too).
      return { kind: 'health', endpoint: root, check: rest.length === 0 ? undefined : rest.join('/') };
    case 'metrics':
      return rest.length === 0 ? { kind: 'metrics' } : undefined;
    case 'openapi':
      return { kind: 'openapi' };
    case 'api':
      if (rest.length === 0) return { kind: 'api' };
      return resourceRoute('', rest[0]!, rest.slice(1));
    case 'apis':
      if (rest.length === 0) return { kind: 'apis' };
      if (rest.length === 1) return { kind: 'group', group: rest[0]! };
      return resourceRoute(rest[0]!, rest[1]!, rest.slice(2));
    default:
      return undefined;
  }
}

function resourceRoute(group: string, version: string, p: string[]): Route | undefined {
  if (p.some((s) => s === '')) return undefined;
  if (p.length === 0) return { kind: 'resources', group, version };
  const r = (resource: string, namespace?: string, name?: string, subresource?: string): Route => ({
    kind: 'resource',
    group,
    version,
    resource,
    namespace,
    name,
    subresource,
  });
  if (p[0] === 'namespaces' && p.length >= 3 && !(p.length === 3 && (p[2] === 'status' || p[2] === 'finalize'))) {
    if (p.length > 5) return undefined;
    return r(p[2]!, p[1], p[3], p[4]);
  }
  if (p.length > 3) return undefined;
  return r(p[0]!, undefined, p[1], p[2]);
}
