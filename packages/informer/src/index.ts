// Public API of @kindex/informer: everything that talks to Kubernetes. Named exports only, in
// groups; add exports to your own group.

// Checks the Node.js x client-node pair before anything loads client-node; keep it first.
import './internal/check-runtime.js';

// --- reflector: list + watch against the API server (src/reflector/)
export { Reflector } from './reflector/reflector.js';
export type { ReflectorOptions, WaitForSyncOptions, InitialState } from './reflector/reflector-options.js';
export type { BackoffOptions } from './reflector/backoff-options.js';
export type { ResourceType } from './kind/resource-type.js';
export type { ReflectorHealth } from './reflector/reflector-health.js';
export type { ReflectorSink } from './reflector/reflector-sink.js';
export type { ObjectTransform } from './kind/object-transform.js';
export { dropManagedFields, keepAppliedFields } from './reflector/object-transform.js';
export { TransformError } from './reflector/reflector-error.js';
export { UnknownResourceTypeError } from './client/resolve-resource-type.js';

// --- kind: typed resource kinds
export { resourceKind, Kinds } from './kind/resource-kind.js';
export type { ResourceKind, ObjectOfKind } from './kind/resource-kind.js';
export { metadataOnly } from './kind/metadata-only.js';
export type { MetadataOnlyKind, PartialObjectMetadata } from './kind/metadata-only.js';
export type { WireForm, JsonForm } from './kind/wire-form.js';

// --- crd: custom resources from one TypeScript definition (src/crd/)
export { customResource } from './crd/custom-resource.js';
export type {
  CustomResource,
  CustomResourceOptions,
  CustomResourceVersion,
  CustomResourceSubresources,
  CustomObject,
  StorageVersionOf,
  ValidateOptions,
} from './crd/custom-resource.js';
export { CustomResourceValidationError } from './crd/custom-resource-validation-error.js';
export type { FieldViolation } from './crd/custom-resource-validation-error.js';
export { KubeType } from './crd/kube-type.js';
export { ConditionSchema, Conditions } from './crd/condition-schema.js';
export type { EmbeddedObject } from './crd/kube-type.js';
export { NonStructuralSchemaError } from './crd/structural-schema.js';
export type { JsonSchemaProps, ValidationRule } from './crd/json-schema-props.js';
export type { CustomResourceDefinition, CustomResourceDefinitionVersion, PrinterColumn, ScaleSubresource } from './crd/crd-manifest.js';
export { installCrds, CrdNotEstablishedError } from './crd/install-crds.js';
export type { InstallCrdsOptions } from './crd/install-crds.js';

// --- cache: shared informers and multi-namespace caches
export { SharedInformer, ConflictingIndexerError } from './cache/shared-informer.js';
export { InformerRegistry } from './cache/informer-registry.js';
export type { InformerLease } from './cache/informer-registry.js';
export type { InformerSpec } from './cache/informer-spec.js';
export type { SharedInformerStats } from './cache/shared-informer.js';
export { InformerCache } from './cache/informer-cache.js';
export { CacheSnapshot } from './cache/cache-snapshot.js';
export type { CacheDelta, CacheDeltaOrigin } from './cache/cache-delta.js';
export type { SharedInformerSink } from './cache/shared-informer-sink.js';
export type { CacheDeltaSink } from './cache/cache-delta-sink.js';
export type { NamespaceSet, InformerCacheOptions } from './cache/informer-cache-options.js';
export { NotCachedError } from './cache/cache-errors.js';
export { BoundedStore } from './cache/bounded/bounded-store.js';
export type { BoundedStoreOptions, BoundedStoreStats, ResourceFetcher } from './cache/bounded/bounded-store.js';
export type { CacheBound } from './cache/bounded/cache-bound.js';

// --- client: writes through the KubeConfig
export { KubeClient } from './client/kube-client.js';
export { KubeApiError } from './client/kube-api-error.js';
export type { KubeApiErrorOptions, KubeApiVerb } from './client/kube-api-error.js';
export { WatchLineError, InactivityTimeoutError } from './client/response-errors.js';
export type { KubeClientOptions, PatchType } from './client/kube-client.js';
export type { ObjectInput } from './client/object-input.js';
export type { KubeClientRegistry, KubeClientRegistryClass } from './client/kube-client-registry.js';
// --- client: server-side apply and matching what was applied
export { InvalidApplyConfigurationError } from './client/invalid-apply-configuration-error.js';
export type { ApplyOptions, ListOptions } from './client/kube-client.js';
export { matchesAppliedFields } from './client/ssa-matcher.js';
export type { PrimaryWriteMode } from './controller/primary-writer.js';
// --- dependent resources and workflows
export {
  KubernetesDependentResource,
  InvalidDesiredResourceError,
  DependentNotPreparedError,
  AmbiguousDependentResourceError,
} from './dependent/kubernetes-dependent-resource.js';
export type {
  KubernetesDependentResourceOptions,
  DependentAction,
  ResourceDiscriminator,
} from './dependent/kubernetes-dependent-resource.js';
export { Workflow, InvalidWorkflowError } from './dependent/workflow.js';
export { WorkflowResult } from './dependent/workflow-result.js';
export type { WorkflowNode, WorkflowCondition } from './dependent/workflow-node.js';
export type { DependentResult } from './dependent/workflow-result.js';
export type { AppliedFieldsMatchOptions } from './client/ssa-matcher.js';

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
export { ManagedInformerEventSource } from './source/managed-informer-event-source.js';
export type { RemoteCluster } from './source/remote-cluster.js';
export type {
  InformerEventSourceConfiguration,
  NamespaceChoice,
  KubeEventSourceContext,
} from './source/informer-event-source-configuration.js';
export type { KubeEventSource, KubeEventSourceCache } from './source/kube-event-source.js';

// --- controller: reconcilers running against the API server
export { Operator } from './operator/operator.js';
export type { OperatorOptions, OperatorRunOptions } from './operator/operator-options.js';
export { ControllerDistributionError } from './operator/controller-distribution.js';
export type { ControllerDistribution, OperatorControllerOptions } from './operator/controller-distribution.js';
export { Controller } from './controller/controller.js';
export type { ControllerOptions } from './controller/controller-options.js';
export type { ControllerEvent, ControllerProblemEvent, ControllerReconciledEvent } from './controller/controller-event.js';
export type { ControllerObservability, ReconcileRecord, PrimaryDescription } from './controller/controller-observability.js';
export type { OperatorObservabilityOptions } from './operator/operator-observability.js';

// --- fleet: one reconciler in clusters that come and go at run time (src/fleet/)
export { FleetController } from './fleet/fleet-controller.js';
export type { FleetControllerOptions, FleetReconciler } from './fleet/fleet-controller.js';
export { ClusterClient } from './fleet/cluster-client.js';
export type { ClusterProvider, ClusterProviderContext, ClusterSink, FleetCluster } from './fleet/cluster-provider.js';
export { StaticClusterProvider } from './fleet/static-cluster-provider.js';
export { KubeconfigSecretProvider } from './fleet/kubeconfig-secret-provider.js';
export type { KubeconfigSecretProviderOptions } from './fleet/kubeconfig-secret-provider.js';
export type { FleetClusterState, FleetClusterStatus } from './fleet/cluster-run.js';
export { KubeconfigSecretError } from './fleet/fleet-errors.js';
export { ClusterNameConflictError } from './source/cluster-name-conflict-error.js';

// --- metrics: Prometheus metrics with controller-runtime's names (src/metrics/)
export { OperatorMetrics } from './metrics/operator-metrics.js';
export { EventMetrics } from './events/event-metrics.js';
export type { EventDropReason } from './events/event-metrics.js';
export type { OperatorMetricsOptions } from './metrics/operator-metrics.js';
export { PrometheusWorkQueueMetrics } from './metrics/prometheus-work-queue-metrics.js';
export type { MeteredController } from './metrics/metered-controller.js';

// --- events: Kubernetes Events from reconcilers, events.k8s.io/v1 with series (src/events/)
export { EventBroadcaster } from './events/event-broadcaster.js';
export type { EventRecorderOptions } from './events/event-broadcaster.js';
export { EventRecordError } from './events/event-record-error.js';

// --- server: /metrics, /healthz, /readyz and /debug/controllers (src/server/)
export { OperatorServer, OperatorServerError } from './server/operator-server.js';
export type { OperatorServerOptions, OperatorServerSources } from './server/operator-server.js';
export { DEFAULT_REVIEW_CACHE_TTL_MS } from './server/secure/secure-serving.js';
export type { SecureServingOptions, ReviewCacheTtl } from './server/secure/secure-serving.js';
export { ServingCertificateError } from './server/secure/serving-certificate.js';
export type { ServingCertificateErrorReason } from './server/secure/serving-certificate.js';
export type { AccessReviewClient } from './server/secure/request-guard.js';
export { HealthChecks, DuplicateHealthCheckError } from './server/health-checks.js';
export type { HealthCheck, HealthCheckKind, HealthReport } from './server/health-checks.js';
export type { DebuggableController, DebuggableFleet } from './server/debuggable-controller.js';

// --- logging: structured JSON logs through pino (src/logging/)
export type { OperatorLoggerOption } from './logging/operator-logger.js';
export { formatErrorForUser } from './logging/user-error.js';

// --- kubeconfig: finding the kubeconfig as kubectl does, checked before any request (src/kubeconfig/)
export { loadKubeConfig } from './kubeconfig/load-kube-config.js';
export type { LoadKubeConfigOptions } from './kubeconfig/load-kube-config-options.js';
export {
  KubeConfigError,
  KubeConfigNotFoundError,
  KubeConfigFileNotFoundError,
  KubeConfigParseError,
  KubeConfigContextError,
  KubeConfigInsecureServerError,
} from './kubeconfig/kube-config-errors.js';
export type { KubeConfigErrorCode, KubeConfigPathSource } from './kubeconfig/kube-config-errors.js';

// --- startup: why start() rejected, and how long it may take (src/startup/)
export { CacheSyncError, CacheSyncTimeoutError, StartAbortedError } from './startup/startup-errors.js';
export type { CacheSyncCluster, CacheSyncFailure, PendingSync } from './startup/startup-errors.js';
export { DEFAULT_CACHE_SYNC_TIMEOUT_MS } from './startup/start-options.js';
export type { StartOptions } from './startup/start-options.js';
export { isNonTransient } from './client/kube-api-error.js';
export type { CacheStartOptions } from './cache/informer-cache-options.js';

// --- rbac: the Roles and ClusterRoles the controllers need (src/rbac/)
export { rbacManifest } from './rbac/rbac-manifest.js';
export type { RbacManifest, RbacManifestOptions, RbacObject, RbacSubject, PolicyRule, RequiredPermission } from './rbac/rbac-manifest.js';
export { requiredPermissions } from './operator/required-permissions.js';
export { remoteClusterManifests, remoteClusterPermissions } from './operator/remote-cluster-permissions.js';
export { secureServerPermissions, metricsReaderClusterRole } from './rbac/metrics-permissions.js';
export type { NonResourceClusterRole } from './rbac/metrics-permissions.js';
export type { RbacListingOptions } from './operator/required-permissions.js';
export { leasePermissions } from './rbac/lease-permissions.js';
export type { LeaseOwners } from './rbac/lease-permissions.js';
export type { DeclaredWrite, RbacVerb, WrittenResource } from './controller/written-resource.js';

// --- leases: what leader election and sharding share (src/lease/)
export { LeaseConflictError } from './lease/lease-conflict-error.js';
export { LeaseConfigError } from './lease/lease-config-error.js';
export type { Lease, LeaseSpec } from './lease/lease.js';
export type { LeaseTiming } from './lease/lease-timing.js';

// --- leader election: one active replica on a coordination.k8s.io/v1 Lease (src/leader-election/)
export { LeaderElector } from './leader-election/leader-elector.js';
export type { LeaderElectorOptions, LeaderElectionTiming, LeaderElectionStatus } from './leader-election/leader-elector.js';
export { KubeLeaseStore } from './leader-election/kube-lease-store.js';
export type { LeaseStore } from './leader-election/lease-store.js';
export { microTime } from './client/micro-time.js';
export type { OperatorLeaderElectionOptions } from './leader-election/operator-leader-election.js';
export { LeaderElectionConfigError, LeaderElectionStartError, NotLeaderError } from './leader-election/leader-election-errors.js';

// --- config: checks of configuration where it is written (unknown keys: UnknownOptionError of @kindex/core)
export type { ReflectorTuningOptions } from './reflector/reflector-options.js';

// --- sharding: N replicas split the primaries, shard ownership on Leases (src/sharding/)
export { ShardCoordinator } from './sharding/shard-coordinator.js';
export type { ShardCoordinatorOptions } from './sharding/shard-coordinator-options.js';
export type { ShardLoss, ShardOwnership } from './sharding/shard-ownership.js';
export { ShardLostError } from './sharding/shard-lost-error.js';
export { KubeShardLeaseStore, SHARD_GROUP_LABEL } from './sharding/kube-shard-lease-store.js';
export type { ShardLeaseStore } from './sharding/shard-lease-store.js';
export { ShardingConfigError } from './sharding/sharding-config-error.js';
export type { OperatorShardingOptions } from './sharding/operator-sharding.js';

// --- webhooks: admission and CRD conversion webhooks over HTTPS (src/webhook/)
export { WebhookServer } from './webhook/webhook-server.js';
export type { WebhookServerOptions, WebhookServerSources, RegisteredAdmissionWebhook } from './webhook/webhook-server.js';
export type { ValidatingWebhook, MutatingWebhook, AdmissionWebhookOptions, WebhookFailurePolicy } from './webhook/admission-webhook.js';
export type {
  AdmissionRequest,
  AdmissionOperation,
  AdmissionUserInfo,
  AdmissionDenial,
  ValidationVerdict,
  MutationVerdict,
} from './webhook/admission-review.js';
export type { ConversionWebhook, SpokeConversion } from './webhook/conversion-webhook.js';
export { generateWebhookCertificates } from './webhook/webhook-certificates.js';
export type { WebhookCertificates, GenerateWebhookCertificatesOptions } from './webhook/webhook-certificates.js';
export { webhookManifest } from './webhook/webhook-manifest.js';
export type { WebhookManifest, WebhookManifestOptions, CrdConversionStanza } from './webhook/webhook-manifest.js';
export { startLocalWebhooks } from './webhook/local-webhooks.js';
export type { LocalWebhooks, LocalWebhooksOptions } from './webhook/local-webhooks.js';
export { WebhookConfigError } from './webhook/webhook-errors.js';

// --- operator definition and manifests: one module describes the operator, main runs it, `kindex manifests` deploys it (src/manifests/)
export { defineOperator, runOperator } from './operator/operator-definition.js';
export type { OperatorDefinition, OperatorDefinitionContext, RunOperatorOptions } from './operator/operator-definition.js';
export { OperatorManifestsError } from './manifests/operator-manifests-error.js';
export { OperatorStartRefusedError } from './manifests/describe-only.js';
export { OperatorModuleError } from './manifests/load-operator-module.js';
