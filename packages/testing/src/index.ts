// Public API of @kindex/testing: API servers to test against (embedded and real), and helpers.
// Named exports only, grouped; add exports to your own group.

// Checks the Node.js x client-node pair before anything loads client-node; keep it first.
import './internal/check-runtime.js';

// --- the common interface
export type { TestApiServer, ApiServerFaults, ForbidRule } from './test-api-server.js';

// --- embedded API server (src/apiserver/)
export { startEmbeddedApiServer, EmbeddedApiServer } from './apiserver/embedded-api-server.js';
export type { EmbeddedApiServerOptions, EmbeddedApiServerFaults } from './apiserver/embedded-api-server.js';
export type { WebhookServiceAddresses, WebhookServiceReference } from './apiserver/webhook/webhook-service-resolver.js';

// --- real kube-apiserver launcher (src/real-apiserver/)
export { RealApiServerBinariesMissingError } from './real-apiserver/real-api-server-binaries.js';
export { RealApiServerStartError } from './real-apiserver/real-api-server-start-error.js';

// --- choosing a server for a suite, and helpers
export { startTestApiServer, UnknownApiServerFlavorError } from './start-test-api-server.js';
export type { TestApiServerOptions } from './test-api-server.js';
export { useTestApiServer } from './helpers/use-test-api-server.js';
export type { UseTestApiServerOptions } from './helpers/use-test-api-server.js';
export { requireFault } from './helpers/require-fault.js';
export type { SkippableContext } from './helpers/require-fault.js';
export { eventually } from './helpers/eventually.js';
export type { EventuallyOptions } from './helpers/eventually.js';
export { uniqueName } from './helpers/unique-name.js';
export { createNamespace } from './helpers/create-namespace.js';
export { createServiceAccount, type TestServiceAccount } from './helpers/create-service-account.js';
export { createTestCrd } from './helpers/test-crd.js';
export type { TestCrd, TestCrdOptions } from './helpers/test-crd.js';
export { WatchEventCollector } from './helpers/watch-event-collector.js';
export type { CollectedWatchEvent, WatchEventType, WatchQuery } from './helpers/watch-event-collector.js';
export { catchApiStatus, NotAnApiStatusError } from './helpers/api-status.js';
export type { ApiStatus, ApiStatusCause } from './helpers/api-status.js';
export { rawRequest } from './helpers/raw-request.js';
export type { RawRequest, RawResponse } from './helpers/raw-request.js';
