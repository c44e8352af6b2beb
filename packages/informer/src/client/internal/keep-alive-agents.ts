import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';

/**
 * The connections kindex's own requests go over: kept open between requests, so a list page, a
 * status write or a re-opened watch does not pay a TCP connection, and over TLS a handshake,
 * each time. Against an API server over TLS, a GET on a fresh connection measured 1.7 ms and
 * about 1 ms of CPU on each side; on a kept one 0.34 ms.
 *
 * The agents carry no TLS settings of their own: each request brings the KubeConfig's current
 * ones, and Node files a TLS connection under its CA, client certificate and key (among other
 * settings), so a rotated certificate or CA gets a connection of its own and is presented to
 * the server, while a request with the same settings reuses one. Tokens are headers, read per
 * request. (client-node 2.x's cached agent holds its first call's certificates instead; see
 * `build-kube-request.ts`.)
 *
 * An idle connection is closed after {@link IDLE_CONNECTION_MS} (sooner when the server
 * announces a shorter keep-alive timeout, which Node honours), before a server that closes idle
 * connections itself (kube-apiserver after 90 s) could do so while a request is being written on
 * it; a reset that still happens on a reused connection is retried by `openRequest` for
 * idempotent methods.
 */

/** How long a connection may sit unused in the pool. */
export const IDLE_CONNECTION_MS = 30_000;

type PooledSocket = Duplex & { setTimeout(ms: number): unknown };

/**
 * `agent` giving a connection it takes from the pool no idle timer: a watch on it may be silent
 * for minutes, and the reflector's own watchdog judges that. (Node arms the timer, the agent's
 * `timeout` or the server's hint less a second, when the connection goes back to the pool.)
 */
function pooled<A extends http.Agent>(agent: A): A {
  const reuseSocket = agent.reuseSocket.bind(agent);
  agent.reuseSocket = (socket, request) => {
    (socket as PooledSocket).setTimeout(0);
    reuseSocket(socket, request);
  };
  return agent;
}

// `timeout` is also what makes Node honour a server's shorter keep-alive hint (it takes the
// smaller of the two; without an agent timeout it keeps idle connections forever).
const options = { keepAlive: true, timeout: IDLE_CONNECTION_MS };
/** The pool for plain HTTP requests (a local API server, tests). */
export const httpAgent: http.Agent = pooled(new http.Agent(options));
/** The pool for TLS requests. */
export const httpsAgent: https.Agent = pooled(new https.Agent(options));
