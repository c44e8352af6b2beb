// Who the server's own clients are: the bearer token it accepts now (rotatable) and the client
// certificates that authenticate on their own, as kube-apiserver authenticates x509 clients
// (here by exact certificate rather than by a CA). Other users' tokens are access-control.ts's.

import { X509Certificate } from 'node:crypto';
import type http from 'node:http';
import { TLSSocket } from 'node:tls';

/** The server's token and trusted client certificates. */
export class ClientAuthenticator {
  #token: string;
  // SHA-256 fingerprints of the client certificates that authenticate a request.
  #clientCertificates = new Set<string>();

  constructor(
    token: string,
    private readonly tls: boolean,
  ) {
    this.#token = token;
  }

  /** The bearer token accepted now. */
  get token(): string {
    return this.#token;
  }

  /** Accepts `token` from now on, and only it. */
  rotateToken(token: string): void {
    if (token === '') throw new Error('rotateToken: the token must not be empty');
    this.#token = token;
  }

  /** Replaces the trusted client certificates (PEM); needs TLS unless the list is empty. */
  trustClientCertificates(certificates: readonly string[]): void {
    if (!this.tls && certificates.length > 0) {
      throw new Error('trustClientCertificates: client certificates need TLS; start the server with { tls: true }');
    }
    this.#clientCertificates = new Set(certificates.map((pem) => new X509Certificate(pem).fingerprint256));
  }

  /** Whether the request carries the token or a trusted client certificate. */
  authenticates(req: http.IncomingMessage): boolean {
    if (req.headers.authorization === `Bearer ${this.#token}`) return true;
    if (this.#clientCertificates.size === 0 || !(req.socket instanceof TLSSocket)) return false;
    const peer = req.socket.getPeerCertificate();
    return peer.fingerprint256 !== undefined && this.#clientCertificates.has(peer.fingerprint256);
  }
}
