// The HTTP(S) listener of the embedded server: created, listening, closed (and created again by
// the restart fault on the same port).

import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SelfSignedCertificate } from './self-signed-certificate.js';

/** An HTTP server, or HTTPS with `certificate`. */
export function createServer(certificate: SelfSignedCertificate | undefined): http.Server {
  // requestCert lets clients present a certificate (see trustClientCertificates); without
  // rejectUnauthorized the handshake still succeeds for clients that present none, such as kubectl.
  const server =
    certificate === undefined
      ? http.createServer()
      : https.createServer({ key: certificate.key, cert: certificate.cert, requestCert: true, rejectUnauthorized: false });
  server.keepAliveTimeout = 30_000;
  return server;
}

/** Listens on `host:port`; resolves to the port bound (0 picks a free one). */
export function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Closes the server and every open connection. */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
