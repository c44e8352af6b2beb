// The webhooks as the API server calls them: served in-process on 127.0.0.1 and installed on the
// test server (embedded, or a real kube-apiserver with KINDEX_APISERVER=real).
import { expect } from 'chai';
import { ResourceID } from '@kindex/core';
import { createNamespace, eventually, startTestApiServer, type TestApiServer } from '@kindex/testing';
import { KubeApiError, KubeClient, Operator, installCrds, startLocalWebhooks, type LocalWebhooks } from '@kindex/informer';
import { Widgets, type Widget } from './widget.js';
import { registerWidgetWebhooks } from './widget-webhooks.js';

describe('the Widget webhooks', function () {
  this.timeout(120_000);
  let server: TestApiServer;
  let operator: Operator;
  let local: LocalWebhooks;
  let client: KubeClient;
  let namespace: string;

  before(async () => {
    server = await startTestApiServer();
    await installCrds(server.kubeConfig, [Widgets.crd]);
    namespace = await createNamespace(server.kubeConfig);
    client = new KubeClient(server.kubeConfig);
    operator = new Operator({ kubeConfig: server.kubeConfig, webhooks: { port: 0, host: '127.0.0.1' } });
    registerWidgetWebhooks(operator.webhooks!);
    local = await startLocalWebhooks(operator.webhooks!, { kubeConfig: server.kubeConfig });
  });

  after(async () => {
    await local?.dispose();
    await server?.stop();
  });

  const widget = (name: string, spec: Widget['spec']): Widget => ({
    apiVersion: Widgets.apiVersion,
    kind: Widgets.kind,
    metadata: { name, namespace },
    spec,
  });

  it('trims spec.message (mutating)', async () => {
    // The API server picks the configurations up from a watch: the first writes may miss them.
    await eventually(
      async () => {
        await client.delete(Widgets, ResourceID.of('trimmed', namespace));
        const created = await client.create(Widgets, widget('trimmed', { message: '  hello  ', key: 'message' }));
        expect(created.spec.message).to.equal('hello');
      },
      { timeoutMs: 30_000 },
    );
  });

  it('refuses a change of spec.key (validating)', async () => {
    let attempt = 0;
    await eventually(
      async () => {
        // A fresh Widget per attempt: an update let through before the webhook was active changed the key.
        const created = await client.create(Widgets, widget(`keyed-${++attempt}`, { message: 'hello', key: 'first' }));
        const refused = await client.update(Widgets, { ...created, spec: { ...created.spec, key: 'second' } }).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused).to.be.instanceOf(KubeApiError);
        expect((refused as KubeApiError).message).to.include('spec.key cannot change (from first to second)');
      },
      { timeoutMs: 30_000 },
    );
  });
});
