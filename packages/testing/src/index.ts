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
export { selfSignedCertificate } from './apiserver/server/self-signed-certificate.js';
export type { SelfSignedCertificate } from './apiserver/server/self-signed-certificate.js';

// --- real kube-apiserver launcher (src/real-apiserver/)
export { startRealApiServer } from './real-apiserver/real-api-server.js';
export type { RealApiServer, RealApiServerOptions } from './real-apiserver/real-api-server.js';
export {
  realApiServerBinaries,
  RealApiServerBinariesMissingError,
  REAL_APISERVER_BUILD_COMMAND,
} from './real-apiserver/real-api-server-binaries.js';
export type { RealApiServerBinaries, RealApiServerBinariesOptions } from './real-apiserver/real-api-server-binaries.js';
export { RealApiServerStartError } from './real-apiserver/real-api-server-start-error.js';

// --- choosing a server for a suite, and helpers
export { startTestApiServer, apiServerFlavorFromEnvironment, UnknownApiServerFlavorError } from './start-test-api-server.js';
export type { ApiServerFlavor } from './start-test-api-server.js';
export type { TestApiServerOptions } from './test-api-server.js';
export { useTestApiServer } from './helpers/use-test-api-server.js';
export type { UseTestApiServerOptions } from './helpers/use-test-api-server.js';
export { requireFault, skipWithReason } from './helpers/require-fault.js';
export type { SkippableContext } from './helpers/require-fault.js';
export { eventually } from './helpers/eventually.js';
export type { EventuallyOptions } from './helpers/eventually.js';
export { uniqueName } from './helpers/unique-name.js';
export { createNamespace } from './helpers/create-namespace.js';
export { createServiceAccount, type TestServiceAccount } from './helpers/create-service-account.js';
export { createNamespacesPerShard } from './helpers/create-namespaces-per-shard.js';
export { createTestCrd } from './helpers/test-crd.js';
export type { TestCrd, TestCrdOptions } from './helpers/test-crd.js';
export { WatchEventCollector } from './helpers/watch-event-collector.js';
export type { CollectedWatchEvent, WatchEventType, WatchQuery } from './helpers/watch-event-collector.js';
export { apiStatusOf, isStatus, catchApiStatus, NotAnApiStatusError } from './helpers/api-status.js';
export type { ApiStatus, ApiStatusCause } from './helpers/api-status.js';
export { rawRequest } from './helpers/raw-request.js';
export type { RawRequest, RawResponse } from './helpers/raw-request.js';
export { metricValue } from './helpers/metric-value.js';
export { catchInvalidOption } from './helpers/catch-invalid-option.js';
export { catchUnknownOptions } from './helpers/catch-unknown-options.js';
