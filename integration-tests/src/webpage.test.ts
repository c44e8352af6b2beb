// JOSDK's WebPage sample written with dependent resources (samples/job-cluster/src/webpage),
// on the test server of the run (embedded, or real with KINDEX_APISERVER=real): how many
// reconciles a WebPage takes to ready, and that a reconcile changing nothing writes nothing.
import { expect } from 'chai';
import { createNamespace, useTestApiServer } from '@kindex/testing';
import { playWebPage } from '@kindex/sample-job-cluster/src/webpage/play-webpage.js';

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
});
