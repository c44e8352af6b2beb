// One error type for every non-2xx answer, whoever sent the request: the reflector's list, a
// KubeClient write. Against an API server over HTTP (embedded by default, kube-apiserver with
// KINDEX_APISERVER=real), plus a hand server for a 429 on a write.
import { expect } from 'chai';
import { ResourceID } from '@kindex/core';
import { createNamespace, uniqueName, useTestApiServer } from '@kindex/testing';
import { isNonTransient, Kinds, KubeApiError, KubeClient, Reflector, type ResourceType } from '../index.js';
import { startHandServer, type HandServer } from './internal/hand-server.js';

const missing: ResourceType = { group: 'nowhere.kindex.test', version: 'v1', plural: 'gadgets', kind: 'Gadget', namespaced: true };

describe('KubeApiError', function () {
  this.timeout(30_000);
  const server = useTestApiServer({ shared: true });

  it('is what a refused reflector list rejects with: status, verb list, the request', async () => {
    const namespace = await createNamespace(server().kubeConfig);
    // A list, as the title says: by watch-list (the default) the refused request is a watch.
    const reflector = new Reflector({
      kubeConfig: server().kubeConfig,
      type: missing,
      namespace,
      backoff: { initialMs: 20, maxMs: 50 },
      initialState: 'list',
    });
    try {
      await reflector.start();
      const error = await reflector.waitForSync({ rejectOn: isNonTransient }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(KubeApiError).and.include({ status: 404, verb: 'list', method: 'GET' });
      expect((error as KubeApiError).request).to.match(new RegExp(`^GET /apis/nowhere.kindex.test/v1/namespaces/${namespace}/gadgets\\?`));
      expect((error as KubeApiError).nonTransient).to.equal(true);
    } finally {
      await reflector.stop();
    }
  });

  it('is what a refused write rejects with, with the Status reason, and its verb', async () => {
    const namespace = await createNamespace(server().kubeConfig);
    const client = new KubeClient(server().kubeConfig, { fieldManager: 'kindex-test' });
    const name = uniqueName('cm');
    const created = await client.create(Kinds.ConfigMap, { metadata: { name, namespace }, data: { a: '1' } });

    const exists = await client.create(Kinds.ConfigMap, { metadata: { name, namespace } }).catch((e: unknown) => e);
    expect(exists).to.be.instanceOf(KubeApiError).and.include({ status: 409, reason: 'AlreadyExists', verb: 'create', method: 'POST' });
    expect((exists as KubeApiError).request).to.equal(`POST /api/v1/namespaces/${namespace}/configmaps?fieldManager=kindex-test`);
    expect((exists as KubeApiError).nonTransient).to.equal(false);

    const stale = await client
      .update(Kinds.ConfigMap, { ...created, metadata: { ...created.metadata, resourceVersion: '1' }, data: { a: '2' } })
      .catch((e: unknown) => e);
    expect(stale).to.be.instanceOf(KubeApiError).and.include({ status: 409, reason: 'Conflict', verb: 'update', method: 'PUT' });
  });
});

describe('KubeApiError from a hand server', () => {
  let hand: HandServer;

  before(async () => {
    // Every request is throttled: a 429 Status with Retry-After, as kube-apiserver's max-in-flight filter answers.
    hand = await startHandServer((request, response) => {
      request.resume();
      request.once('end', () =>
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' }).end(
          JSON.stringify({
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'TooManyRequests',
            message: 'slow down',
            code: 429,
          }),
        ),
      );
    });
  });
  after(() => hand.close());

  it("carries a write's Retry-After, as a read's", async () => {
    const client = new KubeClient(hand.kubeConfig);
    const refused = await client.patch(Kinds.ConfigMap, ResourceID.of('c', 'ns'), { data: {} }).catch((e: unknown) => e);
    expect(refused)
      .to.be.instanceOf(KubeApiError)
      .and.include({ status: 429, reason: 'TooManyRequests', retryAfterSeconds: 3, verb: 'patch' });
    expect((refused as Error).message).to.equal(
      'PATCH /api/v1/namespaces/ns/configmaps/c?fieldManager=kindex: 429 TooManyRequests: slow down',
    );
  });
});
