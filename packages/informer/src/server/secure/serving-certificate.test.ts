import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import {
  generateWebhookCertificates,
  HealthChecks,
  OperatorMetrics,
  OperatorServer,
  OperatorServerError,
  ServingCertificateError,
  type OperatorServerOptions,
  type WebhookCertificates,
} from '../../index.js';
import { tlsGet, fingerprintOf } from '../../testing-fixtures/secure-server.js';

// What the secure server does with the files it is given, before any request: no API server is
// needed (the review client is never called).
describe('OperatorServer secure serving: certificates and ports at start', function () {
  this.timeout(30_000);
  let dir: string;
  let pair: WebhookCertificates;
  let other: WebhookCertificates;
  const open: { close(): Promise<void> | void }[] = [];
  const noReviews = { create: () => Promise.reject(new Error('no reviews in this test')) };

  before(async () => {
    [pair, other] = await Promise.all([
      generateWebhookCertificates({ hosts: ['127.0.0.1'] }),
      generateWebhookCertificates({ hosts: ['127.0.0.1'] }),
    ]);
  });
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'kindex-certs-'))));
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function server(options: Partial<OperatorServerOptions>, lines: Record<string, unknown>[] = []): OperatorServer {
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const s = new OperatorServer(
      { port: 0, host: '127.0.0.1', healthProbePort: 0, ...options },
      { metrics: new OperatorMetrics(), health: new HealthChecks(), controllers: () => [], client: noReviews, logger },
    );
    open.push(s);
    return s;
  }

  function files(cert: string, key: string): { certFile: string; keyFile: string } {
    writeFileSync(join(dir, 'tls.crt'), cert);
    writeFileSync(join(dir, 'tls.key'), key);
    return { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') };
  }

  async function freePort(): Promise<number> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return port;
  }

  async function startError(s: OperatorServer): Promise<Error> {
    try {
      await s.listen();
    } catch (error) {
      return error as Error;
    }
    throw new Error('listen() should have failed');
  }

  it('serves the given pair', async () => {
    const s = server({ secure: files(pair.cert, pair.key) });
    await s.listen();
    const answer = await tlsGet(s.metricsPort, '/metrics', { ca: pair.caCert });
    expect([answer.status, answer.fingerprint]).to.deep.equal([401, fingerprintOf(pair.cert)]);
  });

  it('names a certificate file that does not parse, and the fix', async () => {
    const secure = files('-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n', pair.key);
    const error = await startError(server({ secure }));
    expect(error)
      .to.be.instanceOf(ServingCertificateError)
      .and.to.include({ code: 'KINDEX_SERVING_CERTIFICATE', reason: 'not-a-certificate', file: secure.certFile });
    expect(error.message).to.match(
      new RegExp(
        `^operator server: server.secure.certFile ${secure.certFile} is not a PEM certificate \\(.+\\); give the tls.crt of a kubernetes.io/tls Secret$`,
      ),
    );
  });

  it('names a key file that does not parse, and a key of another certificate', async () => {
    const garbled = files(pair.cert, 'not a key');
    const notKey = await startError(server({ secure: garbled }));
    expect(notKey)
      .to.be.instanceOf(ServingCertificateError)
      .and.to.include({ code: 'KINDEX_SERVING_CERTIFICATE', reason: 'not-a-key', file: garbled.keyFile });
    const mismatched = files(pair.cert, other.key);
    const mismatch = await startError(server({ secure: mismatched }));
    expect(mismatch)
      .to.be.instanceOf(ServingCertificateError)
      .and.to.include({ code: 'KINDEX_SERVING_CERTIFICATE', reason: 'key-mismatch', file: mismatched.keyFile });
    expect(mismatch.message).to.equal(
      `operator server: server.secure.keyFile ${mismatched.keyFile} is not the key of the certificate in ${mismatched.certFile}; give the tls.key issued with that tls.crt (the same Secret)`,
    );
  });

  it('names a missing file', async () => {
    const certFile = join(dir, 'missing.crt');
    const error = await startError(server({ secure: { certFile, keyFile: join(dir, 'missing.key') } }));
    expect(error).to.be.instanceOf(ServingCertificateError).and.to.include({ code: 'KINDEX_SERVING_CERTIFICATE', reason: 'unreadable' });
    expect(error.message).to.match(/^operator server: cannot read server\.secure\.(cert|key)File .+missing\.(crt|key) \(ENOENT/);
    expect(error.message).to.match(
      /; mount the certificate Secret there, or leave certFile and keyFile out for a self-signed certificate$/,
    );
  });

  it('names a health probe port that is taken, and frees the metrics port it had bound', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise<void>((resolve) => taken.close(() => resolve())) });
    const port = (taken.address() as { port: number }).port;
    const metricsPort = await freePort();
    const error = await startError(server({ port: metricsPort, secure: files(pair.cert, pair.key), healthProbePort: port }));
    expect(error).to.be.instanceOf(OperatorServerError).and.to.include({ option: 'server.healthProbePort', port });
    expect(error.message).to.equal(
      `operator server: cannot listen on 127.0.0.1:${port} (listen EADDRINUSE: address already in use 127.0.0.1:${port}); choose another server.healthProbePort or server.host`,
    );
    // The metrics port bound before the probe port failed is free again.
    const again = createServer();
    await new Promise<void>((resolve, reject) => again.once('error', reject).listen(metricsPort, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => again.close(() => resolve()));
  });

  it('generates a self-signed certificate when given no files, and says so', async () => {
    const lines: Record<string, unknown>[] = [];
    const s = server({ secure: true }, lines);
    await s.listen();
    expect((await tlsGet(s.metricsPort, '/metrics')).status).to.equal(401);
    expect(lines.filter((l) => l['level'] === 40).map((l) => l['msg'])).to.deep.equal([
      'serving metrics over HTTPS with a generated self-signed certificate: scrapers must skip verification; mount one and set server.secure.certFile and keyFile to verify it',
    ]);
  });

  it('rejects, at construction, secure without a probe port and a certFile without its keyFile', () => {
    const make = (options: Partial<OperatorServerOptions>) => () =>
      new OperatorServer(
        { port: 0, ...options },
        { metrics: new OperatorMetrics(), health: new HealthChecks(), controllers: () => [], client: noReviews },
      );
    expect(make({ secure: true })).to.throw(
      TypeError,
      'Operator option server.secure needs server.healthProbePort: the kubelet probes without a token, so /healthz and /readyz get a plain port of their own (for example healthProbePort: 8081)',
    );
    expect(make({ secure: { certFile: 'tls.crt' }, healthProbePort: 0 })).to.throw(
      TypeError,
      'Operator option server.secure: give both certFile and keyFile (a mounted tls.crt and tls.key), or neither for a self-signed certificate; got only certFile',
    );
    expect(make({ port: 8443, healthProbePort: 8443 })).to.throw(
      TypeError,
      'server.healthProbePort must differ from server.port (both 8443)',
    );
  });
});
