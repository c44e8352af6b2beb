// Internal API of @kindex/informer, imported as '@kindex/informer/internal': what the other kindex packages,
// their tests, the integration tests, bench and tools use beyond the public API of src/index.ts.
// Not covered by semver and not in the API reference; the sample and the create-kindex template never
// import it. An export moves to src/index.ts once a guide documents it (scripts/ci/check-public-api.mjs).

// Checks the Node.js x client-node pair before anything loads client-node; keep it first.
import './internal/check-runtime.js';

// --- reflector: list + watch against the API server (src/reflector/)
export { resolveResourceType } from './client/resolve-resource-type.js';
export type { ResolveResourceTypeOptions } from './client/resolve-resource-type.js';

// --- crd: custom resources from one TypeScript definition (src/crd/)
export { structuralSchema } from './crd/structural-schema.js';
export { crdYaml } from './crd/crd-yaml.js';
export { crdTypeScript } from './crd/crd-typescript.js';
export type { CrdTypeScriptOptions } from './crd/crd-typescript.js';

// --- cache: shared informers and multi-namespace caches
export { isScopeRemoval } from './cache/cache-delta.js';

// --- client: writes through the KubeConfig
export { objectPath } from './kind/resource-type.js';

// --- client: server-side apply and matching what was applied
export { keepAppliedFieldsOf, ownedPart } from './client/ssa-matcher.js';

// --- controller: reconcilers running against the API server
export { PRIMARY_SOURCE_NAME } from './controller/controller-event.js';
export { TemporaryResourceCache } from './dependent/temporary-resource-cache.js';
export { generationAwarePredicate } from './controller/generation-aware-predicate.js';

// --- fleet: one reconciler in clusters that come and go at run time (src/fleet/)
export { DEFAULT_KUBECONFIG_SECRET_LABEL } from './fleet/kubeconfig-secret-provider.js';

// --- metrics: Prometheus metrics with controller-runtime's names (src/metrics/)
export { ControllerMetrics } from './metrics/controller-metrics.js';
export { InformerMetrics } from './metrics/informer-metrics.js';

// --- server: /metrics, /healthz, /readyz and /debug/controllers (src/server/)
export { SourceHealthMonitor } from './server/source-health-monitor.js';
export type { SourceHealthMonitorOptions } from './server/source-health-monitor.js';
export { controllerDebugView } from './server/debug-controllers.js';
export type { ControllerDebugView } from './server/debug-controllers.js';

// --- logging: structured JSON logs through pino (src/logging/)
export { createOperatorLogger } from './logging/operator-logger.js';
export { causesForLog } from './logging/reconcile-log.js';
export type { LoggedCause } from './logging/reconcile-log.js';

// --- kubeconfig: finding the kubeconfig as kubectl does, checked before any request (src/kubeconfig/)
export { assertUsableKubeConfig } from './kubeconfig/assert-usable-kube-config.js';

// --- rbac: the Roles and ClusterRoles the controllers need (src/rbac/)
export { toYamlDocuments } from './rbac/rbac-manifest.js';
export { fleetMemberManifests } from './operator/remote-cluster-permissions.js';

// --- sharding: N replicas split the primaries, shard ownership on Leases (src/sharding/)
export { SHARD_MAP_ANNOTATION, PREVIOUS_SHARD_MAP_ANNOTATION, SHARD_EPOCH_ANNOTATION } from './sharding/shard-map-lease.js';

// --- operator definition and manifests: one module describes the operator, main runs it, `kindex manifests` deploys it (src/manifests/)
export { operatorManifests } from './manifests/operator-manifests.js';
export type { DescribableOperator, OperatorManifests, OperatorManifestsOptions } from './manifests/operator-manifests.js';
export type { ManifestFile } from './manifests/manifest-files.js';
export type { CertificateSource } from './manifests/certificate-manifests.js';
export { describeOnly, refuseStartWhileDescribing } from './manifests/describe-only.js';
export { loadOperatorModule } from './manifests/load-operator-module.js';
export type { LoadedOperatorDefinition, LoadedOperatorModule, LoadOperatorModuleOptions } from './manifests/load-operator-module.js';
