// The WebPage sample's webhooks (samples/job-cluster/src/webpage/webpage-webhooks.ts): the API
// server calls the operator's conversion and validating webhooks on 127.0.0.1 by url.
import { expect } from 'chai';
import { createNamespace, useTestApiServer } from '@kindex/testing';
import { playWebPageWebhooks } from '@kindex/sample-job-cluster/src/webpage/play-webpage-webhooks.js';

describe('WebPage sample (webhooks)', function () {
  this.timeout(120_000);
  const server = useTestApiServer({ shared: true });

  it('serves v2 through the conversion webhook and refuses a script at either version', async () => {
    const namespace = await createNamespace(server().kubeConfig);
    const lines: string[] = [];
    const figures = await playWebPageWebhooks(server().kubeConfig, namespace, (line) => lines.push(line));
    expect(figures.readAsV2.apiVersion).to.equal('sample.javaoperatorsdk/v2');
    expect(figures.readAsV2.spec, lines.join('\n')).to.deep.equal({ content: { html: '<h1>Hello</h1>' }, exposure: 'Public' });
    expect(figures.v2ReadAsV1.spec).to.deep.equal({ html: '<p>staff only</p>', exposed: false });
    const denial = 'admission webhook "validate.webpages.sample.javaoperatorsdk" denied the request: spec.html must not contain <script>';
    expect(figures.deniedV1).to.include(denial);
    expect(figures.deniedV2).to.include(denial);
  });
});
