import { expect } from 'chai';
import { request } from 'node:https';
import { metricValue } from '@kindex/testing/internal';
import { Operator, resourceKind } from '../index.js';
import { offlineKubeConfig } from '../testing-fixtures/offline-kube-config.js';

const WebPages = resourceKind({ group: 'sample.kindex.dev', version: 'v1', kind: 'WebPage', plural: 'webpages', namespaced: true });

function review(uid: string): string {
  const object = { apiVersion: 'sample.kindex.dev/v1', kind: 'WebPage', metadata: { name: 'a', namespace: 'b' } };
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: 'sample.kindex.dev', version: 'v1', kind: 'WebPage' },
      resource: { group: 'sample.kindex.dev', version: 'v1', resource: 'webpages' },
      operation: 'CREATE',
      userInfo: { username: 'u' },
      object,
    },
  });
}

function post(url: string, ca: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    request(url, { method: 'POST', ca, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    })
      .on('error', reject)
      .end(body);
  });
}

describe('Operator option webhooks', () => {
  it('serves the registered webhooks from start() to stop(), with their metrics in the operator’s registry', async () => {
    const kubeConfig = offlineKubeConfig();
    const operator = new Operator({ kubeConfig, webhooks: { port: 0, host: '127.0.0.1' } });
    operator.webhooks!.validating({ kind: WebPages, validate: () => ({ allowed: false, message: 'no' }) });
    expect(operator.webhooks!.url).to.equal(undefined);
    await operator.start();
    const url = operator.webhooks!.url!;
    try {
      const reply = await post(`${url}/validate/validate.webpages.sample.kindex.dev`, operator.webhooks!.caCert!, review('op-1'));
      expect(JSON.parse(reply.text)).to.deep.nested.include({
        'response.uid': 'op-1',
        'response.allowed': false,
        'response.status.message': 'no',
      });
      const text = await operator.metrics.scrape();
      expect(
        metricValue(text, 'controller_runtime_webhook_requests_total', {
          webhook: '/validate/validate.webpages.sample.kindex.dev',
          code: '200',
        }),
      ).to.equal(1);
    } finally {
      await operator.stop();
    }
    expect(operator.webhooks!.url).to.equal(undefined);
    const refused = await post(`${url}/validate/validate.webpages.sample.kindex.dev`, operator.webhooks!.caCert!, review('op-2')).catch(
      (e: NodeJS.ErrnoException) => e.code,
    );
    expect(refused).to.equal('ECONNREFUSED');
  });
});
