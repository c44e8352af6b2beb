/**
 * The API group of an `apiVersion`: `apps/v1` gives `apps`, `v1` gives `''` (the core group), as
 * apimachinery's ParseGroupVersion. Undefined for a malformed value (`a/b/c`, `/v1`, `apps/`):
 * the caller reports it instead of matching a wrong group.
 */
export function apiGroupOf(apiVersion: string): string | undefined {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return apiVersion === '' ? undefined : '';
  if (slash === 0 || slash === apiVersion.length - 1 || apiVersion.indexOf('/', slash + 1) >= 0) return undefined;
  return apiVersion.slice(0, slash);
}
