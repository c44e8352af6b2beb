// JOSDK's WebPage sample written with dependent resources (samples/job-cluster/src/webpage),
// on the test server of the run (embedded, or real with KINDEX_APISERVER=real): how many
// reconciles a WebPage takes to ready, and that a reconcile changing nothing writes nothing.
import { expect } from 'chai';
import { type EventRecord, type PrimaryCacheReader } from '@kindex/core';
import { DefaultContext } from '@kindex/core/internal';
import { createNamespace, useTestApiServer } from '@kindex/testing';
import type { KubeClient } from '@kindex/informer';
import { playWebPage } from '@kindex/sample-job-cluster/src/webpage/play-webpage.js';
import { createWebPageReconciler } from '@kindex/sample-job-cluster/src/webpage/webpage-reconciler.js';
import type { WebPage } from '@kindex/sample-job-cluster/src/webpage/webpage-model.js';

describe('WebPage sample (dependent resources)', function () {
  this.timeout(120_000);
  const server = useTestApiServer({ shared: true });

  it('reaches ready with every dependent applied, and a no-change reconcile makes 0 writes', async () => {
    const namespace = await createNamespace(server().kubeConfig);
    const lines: string[] = [];
    const figures = await playWebPage(server().kubeConfig, namespace, (line) => lines.push(line));
    console.log(
      `      (reconciles from creation to ready: ${figures.reconcilesToReady}; no-change reconciles: ${figures.noChangeReconciles}, writes: ${figures.noChangeWrites})`,
    );
    expect(figures.reconcilesToReady, lines.join('\n')).to.be.at.least(1);
    expect(figures.noChangeReconciles).to.be.at.least(1);
    expect(figures.noChangeWrites, lines.join('\n')).to.equal(0);
    expect(figures.dependents).to.include({ configmap: 'ready', deployment: 'ready', service: 'ready' });
    // The Ready convention: a True condition describing the generation the reconciler acted on.
    expect(figures.generation).to.equal(2);
    expect(figures.ready).to.include({ type: 'Ready', status: 'True', reason: 'AllDependentsReady', observedGeneration: 2 });
    // One Event for becoming ready (the HTML change kept it ready: no second one).
    expect(figures.events).to.deep.equal([
      { type: 'Normal', reason: 'AllDependentsReady', reportingController: 'webpages.sample.javaoperatorsdk', count: 1 },
    ]);
  });

  it('when retries run out, reports Ready False with the error and records a Warning Event', async () => {
    const recorded: EventRecord[] = [];
    const page: WebPage = {
      apiVersion: 'sample.javaoperatorsdk/v1',
      kind: 'WebPage',
      metadata: { name: 'hello', namespace: 'shop', generation: 3 },
      spec: { html: '<h1>Hello</h1>' },
      status: { ready: true },
    };
    const context = new DefaultContext<WebPage, KubeClient>({
      primary: page,
      eventSources: [],
      primaryCache: {} as PrimaryCacheReader<WebPage>,
      client: {} as KubeClient,
      eventRecorder: { record: (r) => void recorded.push(r) },
    });
    const control = await createWebPageReconciler({ ingressServed: false }).updateErrorStatus!(page, context, new Error('quota exceeded'));
    expect(control.resource?.status?.conditions).to.have.length(1);
    expect(control.resource?.status?.conditions?.[0]).to.include({
      type: 'Ready',
      status: 'False',
      reason: 'ReconcileFailed',
      message: 'quota exceeded',
      observedGeneration: 3,
    });
    expect(recorded).to.deep.equal([{ type: 'Warning', reason: 'ReconcileFailed', action: 'Reconcile', note: 'quota exceeded' }]);
  });
});
