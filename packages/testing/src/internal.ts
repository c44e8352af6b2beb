// Internal API of @kindex/testing, imported as '@kindex/testing/internal': what the other kindex packages,
// their tests, the integration tests, bench and tools use beyond the public API of src/index.ts.
// Not covered by semver and not in the API reference; the sample and the create-kindex template never
// import it. An export moves to src/index.ts once a guide documents it (scripts/ci/check-public-api.mjs).

// Checks the Node.js x client-node pair before anything loads client-node; keep it first.
import './internal/check-runtime.js';

// --- embedded API server (src/apiserver/)
export { selfSignedCertificate } from './apiserver/server/self-signed-certificate.js';
export type { SelfSignedCertificate } from './apiserver/server/self-signed-certificate.js';

// --- real kube-apiserver launcher (src/real-apiserver/)
export { startRealApiServer } from './real-apiserver/real-api-server.js';
export type { RealApiServer, RealApiServerOptions } from './real-apiserver/real-api-server.js';
export { realApiServerBinaries, REAL_APISERVER_BUILD_COMMAND } from './real-apiserver/real-api-server-binaries.js';
export type { RealApiServerBinaries, RealApiServerBinariesOptions } from './real-apiserver/real-api-server-binaries.js';

// --- choosing a server for a suite, and helpers
export { apiServerFlavorFromEnvironment } from './start-test-api-server.js';
export type { ApiServerFlavor } from './start-test-api-server.js';
export { skipWithReason } from './helpers/require-fault.js';
export { createNamespacesPerShard } from './helpers/create-namespaces-per-shard.js';
export { apiStatusOf, isStatus } from './helpers/api-status.js';
export { metricValue } from './helpers/metric-value.js';
export { catchInvalidOption } from './helpers/catch-invalid-option.js';
export { catchUnknownOptions } from './helpers/catch-unknown-options.js';
