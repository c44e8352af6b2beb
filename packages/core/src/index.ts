// Public API of @kindex/core: the Kubernetes-agnostic engine. Named exports only, grouped by
// stage. Each group is owned by the folder it names; add exports to your own group.

// --- resource: objects and their identity
export type { KubernetesObject, ObjectMeta, OwnerReference } from './resource/kubernetes-object.js';
export { ResourceID, InvalidResourceError } from './resource/resource-id.js';

// --- event: what sources report
export type { ResourceEvent, ResourceEventType, CreateEvent, UpdateEvent, DeleteEvent, GenericEvent } from './event/resource-event.js';

// --- selector: label and field selectors (parse, match, format)
export { LabelSelector } from './selector/label-selector.js';
export type { LabelRequirement, LabelSelectorObject, LabelSelectorOperator } from './selector/label-selector.js';
export { InvalidSelectorError } from './selector/invalid-selector-error.js';

// --- shard: server-side sharded list and watch (KEP-5866), same hash client-side
export { ShardSelector } from './shard/shard-selector.js';
export type { ShardField, ShardRange, ShardableObject } from './shard/shard-selector.js';
export { ShardMap } from './shard/shard-map.js';
export type { ShardSegment } from './shard/shard-map.js';

// --- store: the indexed store (mutable Maps, O(1) snapshots through an undo log)
export { IndexedStore } from './store/indexed-store.js';
export type { Indexer, IndexedStoreOptions } from './store/indexed-store.js';
export type { UpsertResult, StoreWriter } from './store/store-writer.js';
export type { StoreSnapshot, StoreReader } from './store/store-snapshot.js';
export { ReleasedSnapshotError } from './snapshot/undo-log.js';
export type { StoreDelta } from './store/store-delta.js';
export { IndexerError, UnknownIndexError, DuplicateIndexerError } from './store/store-error.js';
export type { StoreError } from './store/store-error.js';

// --- reverse-index: primary-to-secondary index
export { PrimaryToSecondaryIndex } from './reverse-index/primary-to-secondary-index.js';
export type {
  ReverseIndexSnapshot,
  ReverseIndexUpdate,
  PrimaryToSecondaryIndexOptions,
} from './reverse-index/primary-to-secondary-index.js';
export { Mappers, withInputsEqual } from './reverse-index/mappers.js';
export type { SecondaryToPrimaryMapper, PrimaryToSecondaryMapper, IndexLookup, MapperInputsEqual } from './reverse-index/mappers.js';
export { MapperError } from './reverse-index/mapper-error.js';

// --- predicate: controller-runtime style predicates
export type { Predicate } from './predicate/predicate.js';
export { funcs, newPredicateFuncs } from './predicate/predicate.js';
export type { FilterErrorListener } from './predicate/evaluate.js';
export { evaluate } from './predicate/evaluate.js';
export { FilterError } from './predicate/filter-error.js';
export { generationChanged } from './predicate/generation-changed.js';
export { labelsChanged } from './predicate/labels-changed.js';
export { annotationsChanged } from './predicate/annotations-changed.js';
export { resourceVersionChanged } from './predicate/resource-version-changed.js';
export { labelSelector } from './predicate/label-selector-predicate.js';
export { and, or, not } from './predicate/combinators.js';

// --- filter: kopf-style declarative filters
export { kopfFilter } from './filter/kopf-filter.js';
export type {
  KopfFilterSpec,
  KopfFilterCommon,
  KopfNoFieldFilter,
  KopfFieldValueFilter,
  KopfFieldChangeFilter,
  MetaCriterion,
  FieldCriterion,
  FieldPath,
  WhenCallback,
} from './filter/kopf-filter.js';
export { PRESENT, ABSENT } from './filter/markers.js';
export { not_, any_, all_, none_ } from './filter/callback-combinators.js';
export type { Judge } from './filter/callback-combinators.js';
export type { FilterContext, SpecOf, StatusOf } from './filter/filter-context.js';
export { InvalidFilterError } from './filter/invalid-filter-error.js';
export type { EventTransform } from './filter/stealth-transition.js';

// --- handler: event handlers (event -> primary IDs)
export type { EventHandler, HandlerProblemReporter } from './handler/event-handler.js';
export { HandlerError } from './handler/handler-error.js';
export { enqueueForObject } from './handler/enqueue-for-object.js';
export { enqueueForOwner } from './handler/enqueue-for-owner.js';
export type { EnqueueForOwnerOptions } from './handler/enqueue-for-owner.js';
export { enqueueFromMapFunc } from './handler/enqueue-from-map-func.js';

// --- queue: work queue, rate limiters, retry
export type { Clock, TimerHandle } from './queue/clock.js';
export { systemClock } from './queue/clock.js';
export { FakeClock } from './queue/fake-clock.js';
export { WorkQueue } from './queue/work-queue.js';
export type { WorkQueueOptions } from './queue/work-queue-options.js';
export { LOW_PRIORITY, PriorityWorkQueue } from './queue/priority-work-queue.js';
export type { WorkQueueMetrics, WorkQueueMetricsProvider, WorkQueueProbe } from './queue/work-queue-metrics.js';
export type { RateLimiter } from './queue/rate-limiter.js';
export { ItemExponentialFailureRateLimiter } from './queue/item-exponential-failure-rate-limiter.js';
export type { ItemExponentialFailureRateLimiterOptions } from './queue/item-exponential-failure-rate-limiter.js';
export { BucketRateLimiter } from './queue/bucket-rate-limiter.js';
export type { BucketRateLimiterOptions } from './queue/bucket-rate-limiter.js';
export { MaxOfRateLimiter } from './queue/max-of-rate-limiter.js';
export { defaultControllerRateLimiter } from './queue/default-controller-rate-limiter.js';
export type { Retry, RetryExecution, RetryInfo } from './queue/retry.js';
export { GenericRetry } from './queue/generic-retry.js';
export type { GenericRetryOptions } from './queue/generic-retry.js';

// --- source: the EventSource contract, timer and polling sources
export type {
  EventSource,
  EventSourceHealth,
  EventSourcePendingSync,
  EventSourceProblem,
  EventSourceStartOptions,
  EventSourceStatistics,
  SecondaryResourceReader,
} from './source/event-source.js';
export type { SecondaryType } from './source/secondary-type.js';
export type { EventSourceHandle } from './source/event-source-handle.js';
export { secondaryType } from './source/secondary-type.js';
export type { Trigger, TriggerCause } from './source/trigger.js';
export type { TriggerSink } from './source/trigger-sink.js';
export { TimerEventSource } from './source/timer-event-source.js';
export type { TimerEventSourceOptions } from './source/timer-event-source.js';
export { PollingEventSource } from './source/polling-event-source.js';
export type { PollingEventSourceOptions } from './source/polling-event-source.js';
export { PerResourcePollingEventSource } from './source/per-resource-polling-event-source.js';
export type { PerResourcePollingEventSourceOptions } from './source/per-resource-polling-event-source.js';

// --- reconcile: Reconciler, Context, controller, event processor
export type { Reconciler } from './reconcile/reconciler.js';
export { UpdateControl } from './reconcile/update-control.js';
export type { UpdateKind } from './reconcile/update-control.js';
export { DeleteControl } from './reconcile/delete-control.js';
export { ErrorStatusUpdateControl } from './reconcile/error-status-update-control.js';
export type { Context, SecondaryResourcesOptions, SecondaryResourceOptions } from './reconcile/context.js';
export type { Logger, LogFn } from './reconcile/logger.js';
export type { EventSourceContext } from './reconcile/event-source-context.js';
export type { PrimaryCache, PrimaryCacheReader } from './reconcile/primary-cache.js';
export { controllerConfiguration, InvalidConfigurationError } from './reconcile/controller-configuration.js';
export type {
  ControllerConfiguration,
  ControllerConfigurationOptions,
  ProcessingConfiguration,
} from './reconcile/controller-configuration.js';
export { EventProcessor } from './reconcile/event-processor.js';
export type {
  EventProcessorOptions,
  ReconcileDispatcher,
  DispatchRequest,
  DispatchResult,
  RetriesExhaustedHook,
  StopOptions,
} from './reconcile/event-processor-options.js';
export type { ReconcileQueue, QueueKind } from './reconcile/reconcile-queue.js';
export { MapReconcileStamps, type ReconcileStamps } from './reconcile/reconcile-stamps.js';
export type { ProcessingEvent, ReconcileOutcome } from './reconcile/processing-event.js';
export type { ReconcileCause, ReconcileCauses } from './reconcile/reconcile-cause.js';
export { TerminalError } from './reconcile/terminal-error.js';
export { ReconcileTimeoutError } from './reconcile/reconcile-timeout-error.js';
export {
  NoEventSourceForTypeError,
  MultipleEventSourcesForTypeError,
  MultipleSecondaryResourcesError,
  EventSourceClassMismatchError,
} from './reconcile/context-errors.js';

// --- options: unknown-key checks every options object runs (src/options/)
export { UnknownOptionError } from './options/unknown-option-error.js';
export { InvalidOptionError } from './options/invalid-option-error.js';
export type { UnknownOption } from './options/unknown-option-error.js';

// --- condition: status conditions (apimachinery meta.SetStatusCondition)
export {
  setStatusCondition,
  findStatusCondition,
  removeStatusCondition,
  isStatusConditionTrue,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
} from './condition/condition.js';
export type { Condition, ConditionInput, ConditionStatus, SetStatusConditionOptions } from './condition/condition.js';
export { InvalidConditionError } from './condition/invalid-condition-error.js';

// --- apiextensions: custom objects checked as kube-apiserver checks them (schema, CEL rules, cost)
export { validateCustomObject } from './apiextensions/schema-validation.js';
export type { ValidateCustomObjectOptions } from './apiextensions/schema-validation.js';
export type { SchemaFieldError } from './apiextensions/schema-field-error.js';
export { defaultCustomObject } from './apiextensions/schema-defaulting.js';

// --- recorder: Kubernetes Events from a reconcile (the contract; @kindex/informer writes them)
export type { EventRecorder, EventRecord, EventType, EventObjectReference } from './recorder/event-recorder.js';

// --- runtime: the supported Node.js x client-node matrix, checked at import (src/runtime/)
export { UnsupportedRuntimeError } from './runtime/supported-runtime.js';
