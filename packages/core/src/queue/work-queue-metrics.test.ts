import { expect } from 'chai';
import { FakeClock, ItemExponentialFailureRateLimiter, WorkQueue, type WorkQueueMetricsProvider, type WorkQueueProbe } from '../index.js';

/** A provider that records every call, for one queue. */
function recorder() {
  const calls = { names: [] as string[], added: 0, started: [] as number[], finished: [] as number[], retried: 0 };
  let probe: WorkQueueProbe | undefined;
  const provider: WorkQueueMetricsProvider = {
    forQueue(name, p) {
      calls.names.push(name);
      probe = p;
      return {
        added: () => calls.added++,
        started: (s) => calls.started.push(s),
        finished: (s) => calls.finished.push(s),
        retried: () => calls.retried++,
      };
    },
  };
  return { calls, provider, probe: () => probe! };
}

function newQueue(clock: FakeClock, provider: WorkQueueMetricsProvider): WorkQueue {
  return new WorkQueue({
    clock,
    name: 'widgets',
    metrics: provider,
    rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 10, maxDelayMs: 1000 }),
  });
}

describe('WorkQueueMetricsProvider', () => {
  it('is asked once for the queue, by name', () => {
    const { calls, provider } = recorder();
    newQueue(new FakeClock(), provider);
    expect(calls.names).to.deep.equal(['widgets']);
  });

  it('counts accepted adds only, not the ones coalesced into a pending add', () => {
    const { calls, provider, probe } = recorder();
    const q = newQueue(new FakeClock(), provider);
    q.add('a');
    q.add('a');
    q.add('b');
    expect(calls.added).to.equal(2);
    expect(probe().depth()).to.equal(2);
  });

  it('reports the wait in the queue and the work time on the queue clock', async () => {
    const clock = new FakeClock();
    const { calls, provider } = recorder();
    const q = newQueue(clock, provider);
    q.add('a');
    await clock.advance(1500);
    expect(await q.get()).to.equal('a');
    await clock.advance(250);
    q.done('a');
    expect(calls.started).to.deep.equal([1.5]);
    expect(calls.finished).to.deep.equal([0.25]);
  });

  it('counts an add during processing once and times its wait from that add', async () => {
    const clock = new FakeClock();
    const { calls, provider, probe } = recorder();
    const q = newQueue(clock, provider);
    q.add('a');
    await q.get();
    await clock.advance(100);
    q.add('a');
    q.add('a');
    expect(calls.added).to.equal(2);
    expect(probe().depth()).to.equal(1);
    await clock.advance(100);
    q.done('a');
    await q.get();
    expect(calls.started).to.deep.equal([0, 0.1]);
  });

  it('samples unfinished work and the longest-running item while items are processed', async () => {
    const clock = new FakeClock();
    const { provider, probe } = recorder();
    const q = newQueue(clock, provider);
    q.add('a');
    await q.get();
    await clock.advance(3000);
    q.add('b');
    await q.get();
    await clock.advance(1000);
    expect(probe().unfinishedWorkSeconds()).to.equal(5);
    expect(probe().longestRunningProcessorSeconds()).to.equal(4);
    q.done('a');
    q.done('b');
    expect(probe().unfinishedWorkSeconds()).to.equal(0);
    expect(probe().longestRunningProcessorSeconds()).to.equal(0);
  });

  it('counts rate-limited requeues as retries', () => {
    const { calls, provider } = recorder();
    const q = newQueue(new FakeClock(), provider);
    q.addRateLimited('a');
    q.addRateLimited('a');
    expect(calls.retried).to.equal(2);
  });

  it('forgets the wait of a removed item', async () => {
    const clock = new FakeClock();
    const { calls, provider, probe } = recorder();
    const q = newQueue(clock, provider);
    q.add('a');
    await clock.advance(500);
    q.remove('a');
    expect(probe().depth()).to.equal(0);
    q.add('a');
    await clock.advance(100);
    await q.get();
    expect(calls.started).to.deep.equal([0.1]);
  });
});
