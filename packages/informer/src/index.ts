// Public API of @kindex/informer: everything that talks to Kubernetes. Named exports only, in
// groups; add exports to your own group.

// Checks the Node.js x client-node pair before anything loads client-node; keep it first.
import './internal/check-runtime.js';

// --- reflector: list + watch against the API server (src/reflector/)
export { Reflector } from './reflector/reflector.js';
export type { ReflectorOptions, WaitForSyncOptions, BackoffOptions } from './reflector/reflector.js';
export type { ResourceType } from './reflector/resource-type.js';
export type { ReflectorDelta, ReflectorAdded, ReflectorUpdated, ReflectorDeleted } from './reflector/reflector-delta.js';
export type { ReflectorHealth } from './reflector/reflector-health.js';
export type { ReflectorStore } from './reflector/reflector-store.js';
export type { ObjectTransform } from './reflector/object-transform.js';
export { dropManagedFields } from './reflector/object-transform.js';
export { ApiRequestError, WatchLineError, InactivityTimeoutError, TransformError } from './reflector/reflector-error.js';
export { resolveResourceType, UnknownResourceTypeError } from './reflector/resolve-resource-type.js';
export type { ResolveResourceTypeOptions } from './reflector/resolve-resource-type.js';

// --- kind: typed resource kinds
export { resourceKind, Kinds } from './kind/resource-kind.js';
export type { ResourceKind } from './kind/resource-kind.js';

// --- cache: shared informers and multi-namespace caches
export { SharedInformer, ConflictingIndexerError } from './cache/shared-informer.js';
export { InformerRegistry } from './cache/informer-registry.js';
export type { InformerLease, InformerSpec } from './cache/informer-registry.js';
export { InformerCache, CacheSnapshot } from './cache/informer-cache.js';
export type { NamespaceSet, CacheDelta, CacheDeltaOrigin, InformerCacheOptions } from './cache/informer-cache.js';
export { NotCachedError } from './cache/cache-errors.js';

// --- client: writes through the KubeConfig
export { KubeClient, KubeApiError, objectPath } from './client/kube-client.js';
export type { KubeClientOptions, PatchType } from './client/kube-client.js';

// --- mapper: owner-reference, annotation and label mappers
export { fromOwnerReferences } from './mapper/owner-reference-mapper.js';
export type { OwnerReferenceMapperOptions } from './mapper/owner-reference-mapper.js';
export {
  fromAnnotations,
  fromLabels,
  DEFAULT_PRIMARY_NAME_KEY,
  DEFAULT_PRIMARY_NAMESPACE_KEY,
  DEFAULT_PRIMARY_TYPE_KEY,
} from './mapper/annotation-mapper.js';
export type { MetadataMapperOptions } from './mapper/annotation-mapper.js';

// --- source: informer-backed event sources
export { InformerEventSource, InformerEventSourceBuilder } from './source/informer-event-source.js';
export type {
  InformerEventSourceConfiguration,
  NamespaceChoice,
  EventSourceProblem,
  KubeEventSourceContext,
} from './source/informer-event-source.js';

// --- controller: reconcilers running against the API server
export { Operator } from './controller/operator.js';
export { Controller, PRIMARY_SOURCE_NAME } from './controller/controller.js';
export type { ControllerOptions, ControllerEvent } from './controller/controller.js';
export { TemporaryResourceCache } from './controller/temporary-resource-cache.js';
export { generationAwarePredicate } from './controller/generation-aware-predicate.js';
