// The WebPage CRD generated from samples/job-cluster/src/webpage/webpage-model.ts, judged by the
// API server of the run (embedded, or real with KINDEX_APISERVER=real): it installs and becomes
// Established, serves WebPages, and its CEL rule refuses a blank page on the server and in the
// client at the same field path.
import { expect } from 'chai';
import { ResourceID } from '@kindex/core';
import { createNamespace, useTestApiServer } from '@kindex/testing';
import { installCrds, KubeApiError, KubeClient, type CustomResourceDefinition } from '@kindex/informer';
import { CrdKind } from '@kindex/sample-job-cluster/src/webpage/play-webpage.js';
import { WebPageKind, type WebPage } from '@kindex/sample-job-cluster/src/webpage/webpage-model.js';
import { WEBPAGE_CRD_WITH_V2, WebPageV2Kind } from '@kindex/sample-job-cluster/src/webpage/webpage-webhooks.js';

/** A CRD as the server returns it, with the conditions that say whether it is Established. */
type LiveCrd = CustomResourceDefinition & { status?: { conditions?: { type: string; status: string }[] } };

describe('WebPage CRD (generated from webpage-model.ts)', function () {
  this.timeout(120_000);
  const server = useTestApiServer({ shared: true });
  let client: KubeClient;
  let namespace: string;

  const page = (name: string, html: string): WebPage => ({
    apiVersion: 'sample.javaoperatorsdk/v1',
    kind: 'WebPage',
    metadata: { name, namespace },
    spec: { html },
  });

  before(async () => {
    client = new KubeClient(server().kubeConfig);
    namespace = await createNamespace(server().kubeConfig);
    await installCrds(server().kubeConfig, [WebPageKind.crd]);
  });

  it('installs, becomes Established, keeps the conditions list keyed by type, and serves WebPages', async () => {
    const live = (await client.get(CrdKind, ResourceID.of('webpages.sample.javaoperatorsdk'))) as LiveCrd | undefined;
    expect(live?.status?.conditions?.find((c) => c.type === 'Established')?.status).to.equal('True');
    const conditions = live?.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.status?.properties?.conditions;
    expect(conditions).to.include({ 'x-kubernetes-list-type': 'map' });
    expect(conditions?.['x-kubernetes-list-map-keys']).to.deep.equal(['type']);
    expect(live?.spec.versions[0]?.additionalPrinterColumns?.map((c) => c.name)).to.deep.equal(['Ready', 'ConfigMap']);
    const good = page('good', '<h1>Hello</h1>');
    expect(WebPageKind.validate(good)).to.deep.equal([]);
    const created = await client.create(WebPageKind, good);
    expect(created.spec.html).to.equal('<h1>Hello</h1>');
  });

  it('refuses a blank page with the rule message, in the client and on the server at the same field path', async function () {
    const blank = page('blank', ' \n ');
    const message = 'html must not be blank (it holds only whitespace): put the page in spec.html';
    expect(WebPageKind.validate(blank)).to.deep.equal([{ field: 'spec.html', message }]);
    const error = await client.create(WebPageKind, blank).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, 'the server accepted a blank WebPage').to.be.instanceOf(KubeApiError);
    expect((error as KubeApiError).status).to.equal(422);
    expect((error as KubeApiError).message).to.include(`spec.html: Invalid value: ${JSON.stringify(blank.spec.html)}: ${message}`);
    expect(await client.get(WebPageKind, ResourceID.of('blank', namespace))).to.equal(undefined);
  });

  it('holds a v2 write (the version of the webhooks sample) to the same rule, at spec.content.html', async function () {
    // The webhooks sample's field manager, so that reinstalling v1 alone afterwards removes v2.
    const fieldManager = 'kindex-webpage-sample';
    await installCrds(server().kubeConfig, [WEBPAGE_CRD_WITH_V2], { fieldManager });
    try {
      const error = await client
        .create(WebPageV2Kind, {
          apiVersion: 'sample.javaoperatorsdk/v2',
          kind: 'WebPage',
          metadata: { name: 'blank-v2', namespace },
          spec: { content: { html: '' } },
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error, 'the server accepted a blank v2 WebPage').to.be.instanceOf(KubeApiError);
      expect((error as KubeApiError).message).to.include(
        'spec.content.html: Invalid value: "": html must not be blank (it is empty): put the page in spec.html',
      );
    } finally {
      await installCrds(server().kubeConfig, [WebPageKind.crd], { fieldManager });
    }
  });
});
