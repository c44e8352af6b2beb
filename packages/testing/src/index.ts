// Public API of @kindex/testing: API servers to test against (embedded and real), and helpers.
// Named exports only, grouped; add exports to your own group.

// --- the common interface
export type { TestApiServer, ApiServerFaults } from './test-api-server.js';

// --- embedded API server (src/apiserver/)

// --- real kube-apiserver launcher (src/real-apiserver/)

// --- choosing a server for a suite, and helpers
