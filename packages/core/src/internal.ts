// Internal API of @kindex/core, imported as '@kindex/core/internal': what the other kindex packages,
// their tests, the integration tests, bench and tools use beyond the public API of src/index.ts.
// Not covered by semver and not in the API reference; the sample and the create-kindex template never
// import it. An export moves to src/index.ts once a guide documents it (scripts/ci/check-public-api.mjs).

// --- resource: objects and their identity
export { deepFreeze } from './resource/deep-freeze.js';
export { jsonEqual } from './resource/json-equal.js';
export { isJsonObject } from './resource/is-json-object.js';
export { isNewerVersion } from './resource/resource-version.js';

// --- event: what sources report
export { Listeners } from './event/listeners.js';

// --- selector: label and field selectors (parse, match, format)
export { FieldSelector } from './selector/field-selector.js';
export type { FieldRequirement } from './selector/field-selector.js';
export { qualifiedNameErrors, labelValueErrors, dnsSubdomainErrors } from './selector/label-syntax.js';

// --- shard: server-side sharded list and watch (KEP-5866), same hash client-side
export { shardIndexOf, SHARD_SPACE_END } from './shard/shard-selector.js';
export { fnv1a64Hex } from './shard/fnv1a64.js';

// --- store: the indexed store (mutable Maps, O(1) snapshots through an undo log)
export { isRecreated } from './store/store-delta.js';

// --- filter: kopf-style declarative filters
export type { PresenceMarker } from './filter/markers.js';
export { stealthTransition } from './filter/stealth-transition.js';

// --- handler: event handlers (event -> primary IDs)
export { mapEvent } from './handler/event-handler.js';
export type { HandlerErrorListener } from './handler/event-handler.js';

// --- source: the EventSource contract, timer and polling sources
export type { EventSourceHandleOptions } from './source/event-source-handle.js';
export { eventSourceHandle } from './source/event-source-handle.js';

// --- reconcile: Reconciler, Context, controller, event processor
export { DefaultContext } from './reconcile/default-context.js';
export { noopLogger } from './reconcile/logger.js';
export type { DefaultContextOptions } from './reconcile/default-context.js';
export { processingConfiguration } from './reconcile/controller-configuration.js';
export type { ProcessingEventType } from './reconcile/processing-event.js';

// --- options: unknown-key checks every options object runs (src/options/)
export { rejectUnknownOptions } from './options/reject-unknown-options.js';
export { positiveMilliseconds } from './options/positive-milliseconds.js';
export type { OptionKeys, OptionKeysOf } from './options/reject-unknown-options.js';
export { defineOptions } from './options/define-options.js';
export type { OptionSchemas, OptionsDefinition } from './options/define-options.js';

// --- apiextensions: custom objects checked as kube-apiserver checks them (schema, CEL rules, cost)
export { pruneCustomObject } from './apiextensions/schema-pruning.js';
export { validationRuleErrors } from './apiextensions/validation-rules.js';
export type { RuleCompileError } from './apiextensions/validation-rules.js';
export { kubernetesCelEnvironment } from './apiextensions/cel-environment.js';

// --- recorder: Kubernetes Events from a reconcile (the contract; @kindex/informer writes them)
export { noopEventRecorder } from './recorder/event-recorder.js';

// --- runtime: the supported Node.js x client-node matrix, checked at import (src/runtime/)
export { assertSupportedRuntime, unsupportedRuntime } from './runtime/supported-runtime.js';
