import { expect } from 'chai';
import { FakeClock, LOW_PRIORITY, PriorityWorkQueue, WorkQueue } from '@kindex/core';
import { Registry } from 'prom-client';
import { PrometheusWorkQueueMetrics } from '../index.js';

/** The `workqueue_depth` series of the registry, as label sets with their value. */
async function depthSeries(registry: Registry): Promise<{ labels: Record<string, string | number>; value: number }[]> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'workqueue_depth');
  return (metric?.values ?? []).map((v) => ({ labels: { ...v.labels } as Record<string, string | number>, value: v.value }));
}

describe('PrometheusWorkQueueMetrics', () => {
  it('reports the depth of a priority queue per priority, as controller-runtime does', async () => {
    const registry = new Registry();
    const queue = new PriorityWorkQueue({ name: 'webapps', clock: new FakeClock(), metrics: new PrometheusWorkQueueMetrics(registry) });
    queue.add('ns/a', LOW_PRIORITY);
    queue.add('ns/b', LOW_PRIORITY);
    queue.add('ns/c', 10);
    expect(await depthSeries(registry)).to.have.deep.members([
      { labels: { name: 'webapps', controller: 'webapps', priority: '0' }, value: 0 },
      { labels: { name: 'webapps', controller: 'webapps', priority: '-100' }, value: 2 },
      { labels: { name: 'webapps', controller: 'webapps', priority: '10' }, value: 1 },
    ]);
    expect(await queue.get()).to.equal('ns/c');
    expect(await depthSeries(registry)).to.have.deep.members([
      { labels: { name: 'webapps', controller: 'webapps', priority: '0' }, value: 0 },
      { labels: { name: 'webapps', controller: 'webapps', priority: '-100' }, value: 2 },
    ]);
  });

  it('keeps the depth of a FIFO queue under its two labels only', async () => {
    const registry = new Registry();
    const queue = new WorkQueue({ name: 'jobs', clock: new FakeClock(), metrics: new PrometheusWorkQueueMetrics(registry) });
    queue.add('ns/a');
    expect(await depthSeries(registry)).to.deep.equal([{ labels: { name: 'jobs', controller: 'jobs' }, value: 1 }]);
  });
});
