// Public API of @kindex/informer.
export const PACKAGE_NAME = '@kindex/informer';

// --- reflector: list + watch against the API server (src/reflector/)
export { Reflector } from './reflector/reflector.js';
export type { ReflectorOptions, WaitForSyncOptions, BackoffOptions } from './reflector/reflector.js';
export type { ResourceType } from './reflector/resource-type.js';
export type { ReflectorDelta, ReflectorAdded, ReflectorUpdated, ReflectorDeleted } from './reflector/reflector-delta.js';
export type { ReflectorHealth } from './reflector/reflector-health.js';
export type { ObjectTransform } from './reflector/object-transform.js';
export { dropManagedFields } from './reflector/object-transform.js';
export { ApiRequestError, WatchLineError, InactivityTimeoutError, TransformError } from './reflector/reflector-error.js';
export { resolveResourceType, UnknownResourceTypeError } from './reflector/resolve-resource-type.js';
export type { ResolveResourceTypeOptions } from './reflector/resolve-resource-type.js';
