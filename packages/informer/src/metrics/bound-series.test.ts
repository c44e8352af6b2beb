import { expect } from 'chai';
import { Counter, Histogram, Registry } from 'prom-client';
import { bindCounter, bindHistogram } from './bound-series.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const VALUES = [0, 0.0005, 0.001, 0.002, 0.05, 0.1, 0.5, 1, 7, 1e9];

/** The same metrics in two registries: one recorded through prom-client's children, one through bound series. */
function pair(): { registry: Registry; counter: Counter<'controller'>; histogram: Histogram<'controller'> }[] {
  return [0, 1].map(() => {
    const registry = new Registry();
    const counter = new Counter({ name: 'things_total', help: 'things', labelNames: ['controller'], registers: [registry] });
    const histogram = new Histogram({
      name: 'thing_seconds',
      help: 'seconds',
      labelNames: ['controller'],
      buckets: BUCKETS,
      registers: [registry],
    });
    return { registry, counter, histogram };
  });
}

describe('bound prom-client series', () => {
  it('expose exactly what prom-client children expose for the same recordings, at zero before any', async () => {
    const [plain, bound] = pair();
    const plainCounter = plain!.counter.labels({ controller: 'web' });
    plainCounter.inc(0);
    plain!.histogram.zero({ controller: 'web' });
    const boundCounter = bindCounter(bound!.counter, { controller: 'web' });
    const boundHistogram = bindHistogram(bound!.histogram, { controller: 'web' }, BUCKETS);
    // With this prom-client the series are bound in place, not through the children.
    expect(boundHistogram).to.not.have.property('startTimer');
    const inc = bound!.counter.inc.bind(bound!.counter);
    bound!.counter.inc = () => expect.fail('a bound counter records in place');
    boundCounter.inc(0);
    bound!.counter.inc = inc;
    expect(await bound!.registry.metrics()).to.equal(await plain!.registry.metrics());
    for (const v of VALUES) {
      plain!.histogram.labels({ controller: 'web' }).observe(v);
      boundHistogram.observe(v);
      plainCounter.inc();
      boundCounter.inc();
    }
    plainCounter.inc(2.5);
    boundCounter.inc(2.5);
    const text = await bound!.registry.metrics();
    expect(text).to.equal(await plain!.registry.metrics());
    expect(text).to.include('thing_seconds_bucket{le="0.01",controller="web"} 4');
    expect(text).to.include('thing_seconds_count{controller="web"} 10');
    expect(text).to.include('things_total{controller="web"} 12.5');
  });

  it('keep recording after the metric is reset or the series removed, and reject what prom-client rejects', async () => {
    const [plain, bound] = pair();
    const boundCounter = bindCounter(bound!.counter, { controller: 'web' });
    const boundHistogram = bindHistogram(bound!.histogram, { controller: 'web' }, BUCKETS);
    bound!.registry.resetMetrics();
    boundCounter.inc();
    boundHistogram.observe(0.05);
    bound!.histogram.remove({ controller: 'web' });
    boundHistogram.observe(0.5);
    plain!.counter.labels({ controller: 'web' }).inc();
    plain!.histogram.labels({ controller: 'web' }).observe(0.5);
    expect(await bound!.registry.metrics()).to.equal(await plain!.registry.metrics());
    expect(() => boundCounter.inc(-1)).to.throw(/not possible to decrease/);
    expect(() => boundHistogram.observe(Number.NaN)).to.throw(/not a valid number/);
  });
});
