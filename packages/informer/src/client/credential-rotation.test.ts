// kindex's own connections (the reflector's reads, KubeClient's writes) must present the
// KubeConfig's credentials as they are now, not as they were on the first request: client-node
// 2.x caches an https.Agent per (cluster, user) whose TLS options override the request's, so a
// rotated client certificate would never reach the server. Each case authenticates
// with credential A, rotates to B on both sides (the server then rejects A), and expects writes
// and a re-opened watch to keep working. Runs on the embedded server over TLS whatever
// KINDEX_APISERVER says: rotating what the server accepts needs its test hooks.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { KubeConfig, type User } from '@kubernetes/client-node';
import { ResourceID, type KubernetesObject } from '@kindex/core';
import { createNamespace, eventually, startEmbeddedApiServer, type EmbeddedApiServer } from '@kindex/testing';
import { selfSignedCertificate, type SelfSignedCertificate } from '@kindex/testing/internal';
import { KubeApiError, KubeClient, Reflector } from '../index.js';
import type { ResourceType } from '../index.js';

const configMaps: ResourceType = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true };

/** One way credentials reach a KubeConfig, and how to rotate them from A to B. */
interface CredentialSource {
  readonly name: string;
  /** Points the user at credential A and lets the server accept only A. */
  setUp(server: EmbeddedApiServer, dir: string): User;
  /** Moves client and server to credential B; the server rejects A from now on. */
  rotate(server: EmbeddedApiServer, kubeConfig: KubeConfig, dir: string): void;
  /** Credential A inline, to check that the server really refuses it after the rotation. */
  readonly stale: User;
}

const base64 = (text: string): string => Buffer.from(text).toString('base64');

function execUser(script: string): User {
  return {
    name: 'operator',
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: process.execPath,
      args: ['-e', script],
      env: [],
      interactiveMode: 'Never',
    },
  }; // client-node's User type lists exec as `any`-typed; the shape is the kubeconfig's
}

// An exec plugin printing an ExecCredential that expires as it is issued, so client-node runs it
// again for the next request. (Without an expiry, client-node 2.x keeps a credential until the
// process ends; 1.4 ran the plugin for every request.)
function execCredentialScript(status: Record<string, string>): string {
  const fields = Object.entries(status)
    .map(([k, file]) => `${JSON.stringify(k)}: fs.readFileSync(${JSON.stringify(file)}, 'utf8')`)
    .join(', ');
  return `const fs = require('node:fs'); process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { expirationTimestamp: new Date().toISOString(), ${fields} } }));`;
}

const certificates: { a: SelfSignedCertificate; b: SelfSignedCertificate } = {
  a: selfSignedCertificate('operator-a'),
  b: selfSignedCertificate('operator-b'),
};
const staleCertificate = { name: 'operator', certData: base64(certificates.a.cert), keyData: base64(certificates.a.key) } as User;

function writePair(dir: string, pair: SelfSignedCertificate): void {
  writeFileSync(join(dir, 'client.crt'), pair.cert);
  writeFileSync(join(dir, 'client.key'), pair.key);
}

const sources: CredentialSource[] = [
  {
    name: 'a token from an exec plugin',
    setUp(server, dir) {
      writeFileSync(join(dir, 'token'), 'token-a');
      server.rotateToken('token-a');
      return execUser(execCredentialScript({ token: join(dir, 'token') }));
    },
    rotate(server, _kubeConfig, dir) {
      writeFileSync(join(dir, 'token'), 'token-b');
      server.rotateToken('token-b');
    },
    stale: { name: 'operator', token: 'token-a' },
  },
  {
    name: 'a client certificate from an exec plugin',
    setUp(server, dir) {
      writePair(dir, certificates.a);
      server.trustClientCertificates([certificates.a.cert]);
      server.rotateToken('nobody-holds-this-token');
      return execUser(execCredentialScript({ clientCertificateData: join(dir, 'client.crt'), clientKeyData: join(dir, 'client.key') }));
    },
    rotate(server, _kubeConfig, dir) {
      writePair(dir, certificates.b);
      server.trustClientCertificates([certificates.b.cert]);
    },
    stale: staleCertificate,
  },
  {
    name: 'a client certificate file on disk',
    setUp(server, dir) {
      writePair(dir, certificates.a);
      server.trustClientCertificates([certificates.a.cert]);
      server.rotateToken('nobody-holds-this-token');
      return { name: 'operator', certFile: join(dir, 'client.crt'), keyFile: join(dir, 'client.key') };
    },
    rotate(server, _kubeConfig, dir) {
      writePair(dir, certificates.b);
      server.trustClientCertificates([certificates.b.cert]);
    },
    stale: staleCertificate,
  },
  {
    name: 'the client certificate of a kubeconfig reloaded into the same KubeConfig',
    setUp(server) {
      server.trustClientCertificates([certificates.a.cert]);
      server.rotateToken('nobody-holds-this-token');
      return { name: 'operator', certData: base64(certificates.a.cert), keyData: base64(certificates.a.key) };
    },
    rotate(server, kubeConfig) {
      load(kubeConfig, server, { name: 'operator', certData: base64(certificates.b.cert), keyData: base64(certificates.b.key) });
      server.trustClientCertificates([certificates.b.cert]);
    },
    stale: staleCertificate,
  },
];

function load(kubeConfig: KubeConfig, server: EmbeddedApiServer, user: User): void {
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'embedded', server: server.url, skipTLSVerify: true }],
    users: [user],
    contexts: [{ name: 'operator', cluster: 'embedded', user: user.name }],
    currentContext: 'operator',
  });
}

describe('credential rotation (reflector reads and KubeClient writes)', function () {
  this.timeout(60_000);
  let server: EmbeddedApiServer;
  let dir: string;
  let namespace: string;
  let reflector: Reflector | undefined;

  beforeEach(async () => {
    server = await startEmbeddedApiServer({ tls: true });
    namespace = await createNamespace(server.kubeConfig);
    dir = mkdtempSync(join(tmpdir(), 'kindex-credentials-'));
  });

  afterEach(async () => {
    await reflector?.stop();
    reflector = undefined;
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const configMap = (name: string): KubernetesObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } });

  for (const source of sources) {
    it(`keeps working when ${source.name} rotates`, async () => {
      const kubeConfig = new KubeConfig();
      load(kubeConfig, server, source.setUp(server, dir));
      const client = new KubeClient(kubeConfig);
      reflector = new Reflector({ kubeConfig, type: configMaps, namespace, backoff: { initialMs: 20, maxMs: 200 } });
      await reflector.start();
      expect(await reflector.waitForSync({ timeoutMs: 10_000 })).to.equal(true);
      await client.create(configMaps, configMap('before'));
      await eventually(() => expect(reflector!.get(`${namespace}/before`)).not.to.equal(undefined), { timeoutMs: 10_000 });

      source.rotate(server, kubeConfig, dir);
      // The old credentials must really be refused, or this test could not fail.
      const stale = new KubeConfig();
      load(stale, server, source.stale);
      const refused = await new KubeClient(stale).get(configMaps, ResourceID.of('before', namespace)).catch((e: unknown) => e);
      expect(refused).to.be.instanceOf(KubeApiError).with.property('status', 401);

      // A write right after the rotation, then a watch re-opened with the new credentials.
      await client.create(configMaps, configMap('after'));
      expect(await client.get(configMaps, ResourceID.of('after', namespace))).to.have.nested.property('metadata.name', 'after');
      await server.faults.closeWatches();
      await client.create(configMaps, configMap('after-reconnect'));
      await eventually(() => expect(reflector!.get(`${namespace}/after-reconnect`)).not.to.equal(undefined), { timeoutMs: 15_000 });
      expect(reflector.get(`${namespace}/after`)).not.to.equal(undefined);
    });
  }
});
