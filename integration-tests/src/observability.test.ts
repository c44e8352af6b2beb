// The Job/Cluster sample's reconciler run by an Operator that serves /metrics, /healthz, /readyz
// and /debug/controllers and logs through pino: scrapes over real HTTP move with the reconciles,
// and a cluster change shows up as the cause of its jobs' reconciles, in the logs and the debug
// endpoint. On both servers (no fault injection). The logs are recorded by a logger of core's
// Logger shape (pino's own JSON lines are tested in @kindex/informer, which depends on pino).
import { expect } from 'chai';
import { ResourceID, type Logger } from '@kindex/core';
import { Operator, type PrimaryDescription } from '@kindex/informer';
import { createNamespace, eventually } from '@kindex/testing';
import { metricValue } from '@kindex/testing/internal';
import { JobReconciler } from '@kindex/sample-job-cluster/src/job-reconciler.js';
import { JobKind, ClusterKind, type Job } from '@kindex/sample-job-cluster/src/model.js';
import { cluster, job, setClusterValue, useSampleServer } from './support/sample-fixture.js';

interface LogLine {
  msg: string;
  name?: string;
  reconcileID?: string;
  causes?: { source: string; type: string; event?: string; object?: string; count: number }[];
}

describe('Operator observability (metrics, health, logs, reconcile causes)', function () {
  this.timeout(90_000);
  const fixture = useSampleServer();
  let operator: Operator | undefined;

  afterEach(async () => {
    await operator?.stop({ drainTimeoutMs: 10_000 });
    operator = undefined;
  });

  async function start(namespace: string) {
    const lines: LogLine[] = [];
    const logger = recordingLogger(lines);
    operator = new Operator({ kubeConfig: fixture().server.kubeConfig, logger, server: { port: 0, host: '127.0.0.1', debug: true } });
    operator.register(new JobReconciler(), { kind: JobKind, name: 'jobs', namespaces: [namespace] });
    await operator.start();
    const port = operator.server!.address!.port;
    const get = async (path: string) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`);
      return { status: response.status, body: await response.text() };
    };
    return { lines, get };
  }

  it('serves metrics that count the reconciles, the queue and the informers, and reports ready', async () => {
    const ns = await createNamespace(fixture().server.kubeConfig);
    const { client } = fixture();
    const { get } = await start(ns);
    expect(await get('/readyz')).to.deep.equal({ status: 200, body: 'ok' });
    expect(await get('/healthz')).to.deep.equal({ status: 200, body: 'ok' });
    const scrape = async () => (await get('/metrics')).body;
    expect(metricValue(await scrape(), 'controller_runtime_reconcile_total', { controller: 'jobs', result: 'success' })).to.equal(0);

    await client.create(ClusterKind, cluster('alpha', ns, 'a-1'));
    for (const name of ['build', 'test', 'deploy']) await client.create(JobKind, job(name, ns, 'alpha'));
    await eventually(async () => {
      for (const name of ['build', 'test', 'deploy']) {
        expect((await client.get<Job>(JobKind, ResourceID.of(name, ns)))?.status?.valueFromCluster).to.equal('a-1');
      }
    });
    await eventually(async () => {
      const text = await scrape();
      expect(metricValue(text, 'controller_runtime_reconcile_total', { controller: 'jobs', result: 'success' })).to.be.at.least(3);
      expect(metricValue(text, 'workqueue_adds_total', { name: 'jobs' })).to.be.at.least(3);
      expect(metricValue(text, 'workqueue_work_duration_seconds_count', { name: 'jobs' })).to.be.at.least(3);
      expect(metricValue(text, 'kindex_informer_objects', { resource: 'jobs.sample.kindex.dev', namespace: ns })).to.equal(3);
      expect(metricValue(text, 'kindex_informer_objects', { resource: 'clusters.sample.kindex.dev', namespace: ns })).to.equal(1);
    });
    const text = await scrape();
    expect(metricValue(text, 'controller_runtime_reconcile_errors_total', { controller: 'jobs' })).to.equal(0);
    expect(metricValue(text, 'kindex_informer_synced', { resource: 'jobs.sample.kindex.dev', namespace: ns })).to.equal(1);
    expect(metricValue(text, 'kindex_informer_watching', { resource: 'jobs.sample.kindex.dev', namespace: ns })).to.equal(1);
  });

  it("names the changed cluster as the cause of its jobs' reconciles, in the log and on the debug endpoint", async () => {
    const ns = await createNamespace(fixture().server.kubeConfig);
    const { client } = fixture();
    const { lines, get } = await start(ns);
    await client.create(ClusterKind, cluster('alpha', ns, 'a-1'));
    await client.create(ClusterKind, cluster('beta', ns, 'b-1'));
    await client.create(JobKind, job('build', ns, 'alpha'));
    await client.create(JobKind, job('deploy', ns, 'beta'));
    await eventually(async () =>
      expect((await client.get<Job>(JobKind, ResourceID.of('deploy', ns)))?.status?.valueFromCluster).to.equal('b-1'),
    );
    await eventually(async () =>
      expect((await client.get<Job>(JobKind, ResourceID.of('build', ns)))?.status?.valueFromCluster).to.equal('a-1'),
    );

    await setClusterValue(client, ns, 'alpha', 'a-2');
    await eventually(async () =>
      expect((await client.get<Job>(JobKind, ResourceID.of('build', ns)))?.status?.valueFromCluster).to.equal('a-2'),
    );
    const fromAlpha = (l: LogLine) =>
      l.causes?.some((c) => c.source === 'clusters' && c.event === 'update' && c.object === `${ns}/alpha`) ?? false;
    await eventually(() => expect(lines.filter((l) => l.msg === 'reconciled' && l.name === 'build' && fromAlpha(l))).to.have.length(1));
    // beta did not change: deploy's reconciles never name alpha.
    expect(lines.filter((l) => l.name === 'deploy' && fromAlpha(l))).to.deep.equal([]);

    const line = lines.find((l) => l.msg === 'reconciled' && l.name === 'build' && fromAlpha(l))!;
    const debug = JSON.parse((await get(`/debug/controllers/jobs/primaries/${ns}/build`)).body) as PrimaryDescription;
    expect(debug.lastReconcile?.reconcileID).to.equal(line.reconcileID);
    expect(debug.lastReconcile?.causes.causes.map((c) => `${c.source} ${c.event} ${c.objectKey}`)).to.include(
      `clusters update ${ns}/alpha`,
    );
  });
});

/** A logger that records each line as one object: its bindings, its fields and `msg`. */
function recordingLogger(lines: LogLine[], bindings: Record<string, unknown> = {}): Logger {
  const write = (fieldsOrMessage: object | string, message?: string): void => {
    const fields = typeof fieldsOrMessage === 'string' ? {} : fieldsOrMessage;
    lines.push({ ...bindings, ...fields, msg: typeof fieldsOrMessage === 'string' ? fieldsOrMessage : (message ?? '') });
  };
  return {
    trace: write,
    debug: write,
    info: write,
    warn: write,
    error: write,
    fatal: write,
    child: (more) => recordingLogger(lines, { ...bindings, ...more }),
  };
}
