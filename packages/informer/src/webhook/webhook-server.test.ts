import { expect } from 'chai';
import { request as httpsRequest } from 'node:https';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { Writable } from 'node:stream';
import jsonPatch from 'fast-json-patch';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { UnknownOptionError, type KubernetesObject } from '@kindex/core';
import { eventually } from '@kindex/testing';
import { metricValue } from '@kindex/testing/internal';
import {
  generateWebhookCertificates,
  Operator,
  resourceKind,
  WebhookConfigError,
  WebhookServer,
  type AdmissionRequest,
  type ValidatingWebhook,
  type WebhookCertificates,
  type WebhookServerOptions,
} from '../index.js';
import { offlineKubeConfig } from '../testing-fixtures/offline-kube-config.js';

type WebPage = KubernetesObject & { spec?: { replicas?: number; title?: string; tags?: string[] } };
const WebPages = resourceKind<WebPage>({
  group: 'sample.kindex.dev',
  version: 'v1',
  kind: 'WebPage',
  plural: 'webpages',
  namespaced: true,
});

interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- reviews are read field by field
}

/** One HTTPS POST verified against the CA, as the API server sends it. */
function post(url: string, ca: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'POST', ca, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function admissionReview(request: Partial<AdmissionRequest<WebPage>> & Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'uid-1',
      kind: { group: 'sample.kindex.dev', version: 'v1', kind: 'WebPage' },
      resource: { group: 'sample.kindex.dev', version: 'v1', resource: 'webpages' },
      operation: 'CREATE',
      userInfo: { username: 'alice', groups: ['devs'] },
      namespace: 'team-a',
      name: 'home',
      object: page({ replicas: 3 }),
      ...request,
    },
  });
}

function page(spec: WebPage['spec']): WebPage {
  return { apiVersion: 'sample.kindex.dev/v1', kind: 'WebPage', metadata: { name: 'home', namespace: 'team-a', uid: 'obj-1' }, spec };
}

describe('WebhookServer', function () {
  let certificates: WebhookCertificates;
  const servers: WebhookServer[] = [];
  let logs: Record<string, unknown>[];
  let registry: Registry;

  before(async () => {
    certificates = await generateWebhookCertificates();
  });
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });

  function server(options: Partial<WebhookServerOptions> = {}): WebhookServer {
    logs = [];
    registry = new Registry();
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const s = new WebhookServer(
      { port: 0, host: '127.0.0.1', certificates, ...options },
      { registry, logger: pino({ level: 'trace' }, sink) },
    );
    servers.push(s);
    return s;
  }

  describe('validating webhooks', () => {
    it('hands the handler the typed request (object, oldObject, userInfo, dryRun) and answers with the same uid', async () => {
      const seen: AdmissionRequest<WebPage>[] = [];
      const s = server().validating({ kind: WebPages, validate: (r) => (seen.push(r), { allowed: true }) });
      await s.listen();
      const reply = await post(
        `${s.url}/validate/validate.webpages.sample.kindex.dev`,
        s.caCert!,
        admissionReview({ uid: 'u-7', operation: 'UPDATE', oldObject: page({ replicas: 1 }), dryRun: true }),
      );
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: 'u-7', allowed: true },
      });
      expect(seen[0]!.object!.spec!.replicas).to.equal(3);
      expect(seen[0]!.oldObject!.spec!.replicas).to.equal(1);
      expect(seen[0]!.userInfo).to.deep.equal({ username: 'alice', groups: ['devs'] });
      expect(seen[0]!.dryRun).to.equal(true);
    });

    it('reads a missing dryRun as false', async () => {
      let dryRun: boolean | undefined;
      const s = server().validating({ kind: WebPages, validate: (r) => ((dryRun = r.dryRun), { allowed: true }) });
      await s.listen();
      await post(`${s.url}/validate/validate.webpages.sample.kindex.dev`, s.caCert!, admissionReview({}));
      expect(dryRun).to.equal(false);
    });

    it('sends a denial with its message, code and warnings', async () => {
      const s = server().validating({
        kind: WebPages,
        validate: () => ({ allowed: false, message: 'spec.replicas must be at most 2', code: 422, warnings: ['think smaller'] }),
      });
      await s.listen();
      const reply = await post(`${s.url}/validate/validate.webpages.sample.kindex.dev`, s.caCert!, admissionReview({}));
      expect(reply.body.response).to.deep.equal({
        uid: 'uid-1',
        allowed: false,
        status: { code: 422, message: 'spec.replicas must be at most 2', reason: 'Forbidden' },
        warnings: ['think smaller'],
      });
    });

    it('turns a handler that throws into a denial with code 500 naming the webhook, and logs the request uid', async () => {
      const s = server().validating({
        kind: WebPages,
        name: 'check.webpages.example.com',
        validate: () => {
          throw new Error('database down');
        },
      });
      await s.listen();
      const reply = await post(`${s.url}/validate/check.webpages.example.com`, s.caCert!, admissionReview({ uid: 'u-boom' }));
      expect(reply.status).to.equal(200);
      expect(reply.body.response).to.deep.equal({
        uid: 'u-boom',
        allowed: false,
        status: { code: 500, message: 'webhook check.webpages.example.com failed: database down' },
      });
      const line = logs.find((l) => l.msg === 'admission webhook threw; denying');
      expect(line).to.include({ uid: 'u-boom', webhook: 'check.webpages.example.com' });
    });

    it('denies with 504 when the handler overruns the timeout the API server sent, and aborts its signal', async () => {
      let aborted = false;
      const s = server().validating({
        kind: WebPages,
        validate: (_r, signal) => new Promise(() => signal.addEventListener('abort', () => (aborted = true))),
      });
      await s.listen();
      const reply = await post(`${s.url}/validate/validate.webpages.sample.kindex.dev?timeout=150ms`, s.caCert!, admissionReview({}));
      expect(reply.body.response.allowed).to.equal(false);
      expect(reply.body.response.status.code).to.equal(504);
      expect(reply.body.response.status.message).to.match(/did not answer within 150 ms/);
      expect(aborted).to.equal(true);
    });
  });

  describe('mutating webhooks', () => {
    it('sends the RFC 6902 patch from the request object to the desired one', async () => {
      const s = server().mutating({
        kind: WebPages,
        mutate: ({ object }) => ({
          allowed: true,
          object: { ...object!, spec: { ...object!.spec, title: 'Home', tags: ['a'] } },
          warnings: ['defaulted title'],
        }),
      });
      await s.listen();
      const reply = await post(`${s.url}/mutate/mutate.webpages.sample.kindex.dev`, s.caCert!, admissionReview({}));
      const response = reply.body.response;
      expect(response.patchType).to.equal('JSONPatch');
      expect(response.warnings).to.deep.equal(['defaulted title']);
      const patch = JSON.parse(Buffer.from(response.patch as string, 'base64').toString('utf8')) as jsonPatch.Operation[];
      const patched = jsonPatch.applyPatch(page({ replicas: 3 }), patch, true, false).newDocument;
      expect(patched.spec).to.deep.equal({ replicas: 3, title: 'Home', tags: ['a'] });
    });

    it('sends the patch of a handler that changed the request object in place and returned it', async () => {
      const s = server().mutating({
        kind: WebPages,
        mutate: ({ object }) => {
          object!.spec!.title = 'Home';
          return { allowed: true, object: object! };
        },
      });
      await s.listen();
      const reply = await post(`${s.url}/mutate/mutate.webpages.sample.kindex.dev`, s.caCert!, admissionReview({}));
      const patch = JSON.parse(Buffer.from(reply.body.response.patch as string, 'base64').toString('utf8')) as unknown;
      expect(patch).to.deep.equal([{ op: 'add', path: '/spec/title', value: 'Home' }]);
    });

    it('sends no patch when the desired object equals the request object', async () => {
      const s = server().mutating({ kind: WebPages, mutate: ({ object }) => ({ allowed: true, object: object! }) });
      await s.listen();
      const reply = await post(`${s.url}/mutate/mutate.webpages.sample.kindex.dev`, s.caCert!, admissionReview({}));
      expect(reply.body.response).to.deep.equal({ uid: 'uid-1', allowed: true });
    });
  });

  describe('conversion webhooks', () => {
    // v2 is the hub: spec.url (v1) splits into host and path; v3 renames path to route.
    const conversion = {
      group: 'sample.kindex.dev',
      plural: 'webpages',
      kind: 'WebPage',
      hub: 'v2',
      spokes: {
        v1: {
          toHub: (o: KubernetesObject) => {
            const url = new URL((o as unknown as { spec: { url: string } }).spec.url);
            return { ...o, spec: { host: url.host, path: url.pathname } };
          },
          fromHub: (o: KubernetesObject) => {
            const { host, path } = (o as unknown as { spec: { host: string; path: string } }).spec;
            return { ...o, spec: { url: `https://${host}${path}` } };
          },
        },
        v3: {
          toHub: (o: KubernetesObject) => {
            const { host, route } = (o as unknown as { spec: { host: string; route: string } }).spec;
            return { ...o, spec: { host, path: route } };
          },
          fromHub: (o: KubernetesObject) => {
            const { host, path } = (o as unknown as { spec: { host: string; path: string } }).spec;
            return { ...o, spec: { host, route: path } };
          },
        },
      },
    };
    const review = (desiredAPIVersion: string, objects: unknown[]): string =>
      JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { uid: 'c-1', desiredAPIVersion, objects },
      });
    const v1 = {
      apiVersion: 'sample.kindex.dev/v1',
      kind: 'WebPage',
      metadata: { name: 'home', namespace: 'a', uid: 'o-1', resourceVersion: '5' },
      spec: { url: 'https://example.com/docs' },
    };

    it('converts a spoke to the hub and to another spoke through the hub, keeping metadata', async () => {
      const s = server().conversion(conversion);
      await s.listen();
      const toHub = await post(`${s.url}/convert`, s.caCert!, review('sample.kindex.dev/v2', [v1]));
      expect(toHub.body.response.result).to.deep.equal({ status: 'Success' });
      expect(toHub.body.response.uid).to.equal('c-1');
      expect(toHub.body.response.convertedObjects).to.deep.equal([
        { ...v1, apiVersion: 'sample.kindex.dev/v2', spec: { host: 'example.com', path: '/docs' } },
      ]);
      const toV3 = await post(`${s.url}/convert`, s.caCert!, review('sample.kindex.dev/v3', [v1]));
      expect(toV3.body.response.convertedObjects[0]).to.deep.equal({
        ...v1,
        apiVersion: 'sample.kindex.dev/v3',
        spec: { host: 'example.com', route: '/docs' },
      });
      const back = await post(
        `${s.url}/convert`,
        s.caCert!,
        review('sample.kindex.dev/v1', toV3.body.response.convertedObjects as unknown[]),
      );
      expect(back.body.response.convertedObjects[0]).to.deep.equal(v1);
    });

    it('answers Failure naming the object when a version is not converted, and logs the uid', async () => {
      const s = server().conversion(conversion);
      await s.listen();
      const reply = await post(`${s.url}/convert`, s.caCert!, review('sample.kindex.dev/v9', [v1]));
      expect(reply.status).to.equal(200);
      expect(reply.body.response.result.status).to.equal('Failure');
      expect(reply.body.response.result.message).to.match(/WebPage a\/home: desiredAPIVersion sample.kindex.dev\/v9/);
      expect(logs.some((l) => l.uid === 'c-1')).to.equal(true);
    });
  });

  describe('bad requests', () => {
    it('answers 400 to a body that is not JSON, to a review without uid and to a review of another kind; keeps serving', async () => {
      const s = server().validating({ kind: WebPages, validate: () => ({ allowed: true }) });
      await s.listen();
      const at = `${s.url}/validate/validate.webpages.sample.kindex.dev`;
      const notJson = await post(at, s.caCert!, '{"apiVersion":');
      expect(notJson.status).to.equal(400);
      expect(notJson.body.error).to.match(/not JSON/);
      const noUid = await post(at, s.caCert!, admissionReview({ uid: '' }));
      expect(noUid.status).to.equal(400);
      expect(noUid.body.error).to.equal('malformed review: request.uid must be a non-empty string, got ""');
      const wrongKind = await post(at, s.caCert!, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', request: {} }));
      expect(wrongKind.status).to.equal(400);
      const noObject = await post(at, s.caCert!, admissionReview({ object: undefined }));
      expect(noObject.body.error).to.equal('malformed review: request.object is required for CREATE');
      const conversionWithoutObjects = await post(
        `${s.url}/convert`,
        s.caCert!,
        JSON.stringify({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          request: { uid: 'x', desiredAPIVersion: 'a/v1' },
        }),
      );
      expect(conversionWithoutObjects.status).to.equal(400);
      expect((await post(at, s.caCert!, admissionReview({}))).body.response.allowed).to.equal(true);
    });

    it('answers 413 to a body over maxRequestBytes', async () => {
      const s = server({ maxRequestBytes: 1024 }).validating({ kind: WebPages, validate: () => ({ allowed: true }) });
      await s.listen();
      const reply = await post(
        `${s.url}/validate/validate.webpages.sample.kindex.dev`,
        s.caCert!,
        admissionReview({ object: page({ title: 'x'.repeat(2000) }) }),
      );
      expect(reply.status).to.equal(413);
      expect(reply.body.error).to.match(/over 1024 bytes/);
    });

    it('answers 404 naming the paths it serves, and 405 to a GET', async () => {
      const s = server().validating({ kind: WebPages, validate: () => ({ allowed: true }) });
      await s.listen();
      const missing = await post(`${s.url}/validate/other.example.com.x`, s.caCert!, admissionReview({}));
      expect(missing.status).to.equal(404);
      expect(missing.body.error).to.include('/validate/validate.webpages.sample.kindex.dev');
      const get = await new Promise<number>((resolve, reject) => {
        const at = `${s.url}/validate/validate.webpages.sample.kindex.dev`;
        httpsRequest(at, { method: 'GET', ca: s.caCert! }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        })
          .on('error', reject)
          .end();
      });
      expect(get).to.equal(405);
    });
  });

  it('exports controller-runtime’s webhook metrics by path and code', async () => {
    const s = server().validating({ kind: WebPages, validate: () => ({ allowed: true }) });
    await s.listen();
    const at = `${s.url}/validate/validate.webpages.sample.kindex.dev`;
    await post(at, s.caCert!, admissionReview({}));
    await post(at, s.caCert!, admissionReview({}));
    await post(at, s.caCert!, '{');
    const text = await registry.metrics();
    const webhook = '/validate/validate.webpages.sample.kindex.dev';
    expect(metricValue(text, 'controller_runtime_webhook_requests_total', { webhook, code: '200' })).to.equal(2);
    expect(metricValue(text, 'controller_runtime_webhook_requests_total', { webhook, code: '400' })).to.equal(1);
    expect(metricValue(text, 'controller_runtime_webhook_latency_seconds_count', { webhook })).to.equal(3);
    expect(metricValue(text, 'controller_runtime_webhook_requests_in_flight', { webhook })).to.equal(0);
  });

  it('serves the certificates of certDir and the rotated ones after cert-manager replaces them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kindex-webhook-certs-'));
    try {
      const write = async (c: WebhookCertificates): Promise<void> => {
        // As kubelet does: write beside, then rename into place.
        for (const [file, text] of [
          ['tls.crt', c.cert],
          ['tls.key', c.key],
          ['ca.crt', c.caCert],
        ] as const) {
          await writeFile(join(dir, `.${file}.tmp`), text);
          await rename(join(dir, `.${file}.tmp`), join(dir, file));
        }
      };
      await write(certificates);
      const s = server({ certificates: undefined, certDir: dir }).validating({ kind: WebPages, validate: () => ({ allowed: true }) });
      await s.listen();
      const served = async (): Promise<string> => {
        const port = Number(new URL(s.url!).port);
        return new Promise((resolve, reject) => {
          const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
            resolve(socket.getPeerX509Certificate()!.fingerprint256);
            socket.end();
          });
          socket.on('error', reject);
        });
      };
      const { X509Certificate } = await import('node:crypto');
      expect(await served()).to.equal(new X509Certificate(certificates.cert).fingerprint256);
      expect(s.caCert).to.equal(certificates.caCert);
      const rotated = await generateWebhookCertificates();
      await write(rotated);
      await eventually(async () => expect(await served()).to.equal(new X509Certificate(rotated.cert).fingerprint256), { timeoutMs: 5000 });
      expect(s.caCert).to.equal(rotated.caCert);
      // A broken rotation keeps the last good pair.
      await writeFile(join(dir, 'tls.key'), 'not a key');
      await eventually(
        () => expect(logs.some((l) => l.msg === 'webhook certificates not reloaded; serving the previous ones')).to.equal(true),
        { timeoutMs: 5000 },
      );
      expect(await served()).to.equal(new X509Certificate(rotated.cert).fingerprint256);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects unknown option keys of the server, of a webhook and of the Operator option, naming the closest key', () => {
    const logger = pino({ level: 'silent' });
    const unknown = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        expect(e).to.be.instanceOf(UnknownOptionError);
        return (e as Error).message;
      }
      throw new Error('no error thrown');
    };
    expect(unknown(() => new WebhookServer({ port: 0, certdir: '/certs' } as WebhookServerOptions, { registry: new Registry(), logger })))
      .to.include('certdir')
      .and.to.include('certDir');
    const s = server();
    expect(
      unknown(() =>
        s.validating({ kind: WebPages, failurPolicy: 'Ignore', validate: () => ({ allowed: true }) } as unknown as ValidatingWebhook),
      ),
    ).to.include('failurPolicy');
    expect(
      unknown(() => new Operator({ kubeConfig: offlineKubeConfig(), webhooks: { port: 0, maxBytes: 1 } as WebhookServerOptions })),
    ).to.include('webhooks.maxBytes');
  });

  it('rejects bad options naming the webhook, the field and the fix', () => {
    const s = server();
    const validate = (): { allowed: true } => ({ allowed: true });
    const error = (f: () => unknown): WebhookConfigError => {
      try {
        f();
      } catch (e) {
        expect(e).to.be.instanceOf(WebhookConfigError);
        return e as WebhookConfigError;
      }
      throw new Error('no error thrown');
    };
    expect(error(() => s.validating({ kind: WebPages, timeoutSeconds: 60, validate })).message).to.equal(
      "validating webhook validate.webpages.sample.kindex.dev: timeoutSeconds: give an integer from 1 to 30 (the API server's limit), not 60",
    );
    expect(error(() => s.validating({ kind: WebPages, name: 'short', validate })).field).to.equal('name');
    expect(
      error(() => s.mutating({ kind: WebPages, operations: ['PATCH' as never], mutate: () => ({ allowed: false, message: '' }) })).field,
    ).to.equal('operations');
    s.validating({ kind: WebPages, validate });
    expect(error(() => s.validating({ kind: WebPages, validate })).message).to.match(/registered already/);
    expect(error(() => s.conversion({ group: 'g.example.com', plural: 'things', kind: 'Thing', hub: 'v2', spokes: {} })).field).to.equal(
      'spokes',
    );
    expect(error(() => new WebhookServer({ port: -1 }, { registry: new Registry(), logger: pino({ level: 'silent' }) })).field).to.equal(
      'port',
    );
  });
});
