import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createNamespace, createServiceAccount, eventually, useTestApiServer } from '@kindex/testing';
import { generateWebhookCertificates, Operator } from '../../index.js';
import { grantNonResourceUrls, revoke, serviceAccountToken, tlsGet } from '../../testing-fixtures/secure-server.js';

// docs/security.md promises that the operator's logs never hold a bearer token or a private key:
// run the secure server at debug level through every path that logs (scrapes allowed, denied,
// anonymous and forged; a review the operator may not send; a rotation to a broken and then a
// good pair) and look for them in every captured line.
describe('secure operator server logs', function () {
  this.timeout(90_000);
  const server = useTestApiServer({ authorization: 'RBAC' });
  let dir: string;
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const undo of cleanup.splice(0).reverse()) await undo();
    rmSync(dir, { recursive: true, force: true });
  });

  it('never contain a bearer token or a certificate key, at debug level', async () => {
    const kubeConfig = server().kubeConfig;
    const namespace = await createNamespace(kubeConfig);
    const reader = await serviceAccountToken(kubeConfig, namespace);
    const stranger = await serviceAccountToken(kubeConfig, namespace);
    const name = await grantNonResourceUrls(kubeConfig, reader, namespace, ['/metrics']);
    cleanup.push(() => revoke(kubeConfig, name));
    const [first, second, third] = await Promise.all([1, 2, 3].map(() => generateWebhookCertificates({ hosts: ['127.0.0.1'] })));
    dir = mkdtempSync(join(tmpdir(), 'kindex-logs-'));
    const certFile = join(dir, 'tls.crt');
    const keyFile = join(dir, 'tls.key');
    writeFileSync(certFile, first!.cert);
    writeFileSync(keyFile, first!.key);

    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    const start = async (asKubeConfig: typeof kubeConfig): Promise<Operator> => {
      const operator = new Operator({
        kubeConfig: asKubeConfig,
        logger,
        server: { port: 0, host: '127.0.0.1', debug: true, secure: { certFile, keyFile }, healthProbePort: 0 },
      });
      cleanup.push(() => operator.stop());
      await operator.start();
      return operator;
    };
    const operator = await start(kubeConfig);
    const port = operator.server!.metricsPort;
    const forged = `${reader.token.slice(0, -6)}${reader.token.endsWith('AAAAAA') ? 'BBBBBB' : 'AAAAAA'}`;
    expect((await tlsGet(port, '/metrics', { token: reader.token })).status).to.equal(200);
    expect((await tlsGet(port, '/debug/controllers', { token: reader.token })).status).to.equal(403);
    expect((await tlsGet(port, '/metrics', { token: stranger.token })).status).to.equal(403);
    expect((await tlsGet(port, '/metrics', { token: forged })).status).to.equal(401);
    expect((await tlsGet(port, '/metrics')).status).to.equal(401);

    // An operator whose ServiceAccount may not create TokenReviews: the failed review is logged.
    const unprivileged = await createServiceAccount(kubeConfig, namespace);
    const weak = await start(unprivileged.kubeConfig);
    const failed = await tlsGet(weak.server!.metricsPort, '/metrics', { token: reader.token });
    expect(failed.status).to.equal(500);
    expect(failed.body).to.equal('Authentication failed: the operator could not review the token; see its log\n');

    // A rotation to a key of another certificate (refused, logged), then to a good pair (logged).
    writeFileSync(keyFile, second!.key);
    await eventually(() => expect(lines.some((l) => l.includes('certificate not reloaded'))).to.equal(true), { timeoutMs: 15_000 });
    writeFileSync(certFile, third!.cert);
    writeFileSync(keyFile, third!.key);
    await eventually(() => expect(lines.some((l) => l.includes('certificate reloaded'))).to.equal(true), { timeoutMs: 15_000 });
    await operator.stop();

    const messages = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages).to.include.members([
      'request denied: no get on the path',
      'bearer token rejected by the TokenReview',
      'TokenReview failed; answering 500 (may the operator create tokenreviews?)',
      'operator server certificate not reloaded; serving the previous one',
      'operator server certificate reloaded',
    ]);
    const secrets = {
      'the reader token': reader.token,
      'the stranger token': stranger.token,
      'the forged token': forged,
      // A token's signature (its last part) alone identifies it too.
      'a token signature': reader.token.split('.').at(-1)!.slice(-20),
      ...Object.fromEntries(
        [first, second, third].map((p, i) => [`private key ${i + 1}`, p!.key.split('\n').slice(1, -2).join('').slice(0, 40)]),
      ),
      'a PEM key header': 'PRIVATE KEY',
      'an Authorization header': 'Bearer ',
    };
    for (const [what, secret] of Object.entries(secrets)) {
      const leaking = lines.filter((l) => l.includes(secret));
      expect(leaking, `${what} in the log`).to.deep.equal([]);
    }
  });
});
