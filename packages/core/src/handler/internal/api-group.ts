/**
 * Whether an `apiVersion` is well formed: `version` (core group) or `group/version`, as
 * apimachinery's ParseGroupVersion accepts; `a/b/c`, `/v1`, `apps/` and `''` are not. Malformed
 * values are reported rather than matched against a wrong group.
 */
export function isValidApiVersion(apiVersion: string): boolean {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return apiVersion !== '';
  return slash > 0 && slash < apiVersion.length - 1 && apiVersion.indexOf('/', slash + 1) < 0;
}

/**
 * A test for "this well-formed apiVersion belongs to `group`" (`''` is the core group), the
 * version ignored. Built once per handler; it compares without slicing, since it runs for every
 * owner reference of every event.
 */
export function apiGroupMatcher(group: string): (apiVersion: string) => boolean {
  if (group === '') return (apiVersion) => apiVersion.indexOf('/') < 0;
  const prefix = `${group}/`;
  return (apiVersion) => apiVersion.startsWith(prefix);
}
