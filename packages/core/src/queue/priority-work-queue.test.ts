import { expect } from 'chai';
import {
  FakeClock,
  ItemExponentialFailureRateLimiter,
  LOW_PRIORITY,
  PriorityWorkQueue,
  type WorkQueueMetricsProvider,
  type WorkQueueProbe,
} from '../index.js';

function newQueue(clock = new FakeClock(), metrics?: WorkQueueMetricsProvider): PriorityWorkQueue {
  return new PriorityWorkQueue({
    clock,
    rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 10, maxDelayMs: 1000 }),
    ...(metrics !== undefined ? { name: 'widgets', metrics } : {}),
  });
}

async function drain(q: PriorityWorkQueue): Promise<string[]> {
  const out: string[] = [];
  while (q.len() > 0) {
    const k = (await q.get())!;
    out.push(k);
    q.done(k);
  }
  return out;
}

describe('PriorityWorkQueue', () => {
  it('hands out the highest priority first, and FIFO within one priority', async () => {
    const q = newQueue();
    q.add('low-1', LOW_PRIORITY);
    q.add('normal-1');
    q.add('low-2', LOW_PRIORITY);
    q.add('high', 10);
    q.add('normal-2', 0);
    expect(await drain(q)).to.deep.equal(['high', 'normal-1', 'normal-2', 'low-1', 'low-2']);
  });

  it('raises the priority of a waiting item re-added higher, in the place of its first add', async () => {
    const q = newQueue();
    q.add('a', LOW_PRIORITY);
    q.add('b');
    q.add('c');
    q.add('a', 0);
    expect(q.len()).to.equal(3);
    expect(q.priorityOf('a')).to.equal(0);
    expect(await drain(q)).to.deep.equal(['a', 'b', 'c']);
  });

  it('never lowers the priority of a waiting item', async () => {
    const q = newQueue();
    q.add('a', 5);
    q.add('b', 5);
    q.add('a', LOW_PRIORITY);
    expect(q.priorityOf('a')).to.equal(5);
    expect(await drain(q)).to.deep.equal(['a', 'b']);
  });

  it('queues an add during processing once, after done, at the highest priority asked', async () => {
    const q = newQueue();
    q.add('a');
    expect(await q.get()).to.equal('a');
    q.add('a', LOW_PRIORITY);
    q.add('a', 3);
    q.add('b', 1);
    expect(q.len()).to.equal(1);
    q.done('a');
    expect(q.len()).to.equal(2);
    expect(await drain(q)).to.deep.equal(['a', 'b']);
  });

  it('tells the priority an item was handed out at while it is processed', async () => {
    const q = newQueue();
    q.add('a', LOW_PRIORITY);
    expect(await q.get()).to.equal('a');
    expect(q.priorityOf('a')).to.equal(LOW_PRIORITY);
    q.done('a');
    expect(q.priorityOf('a')).to.equal(undefined);
  });

  it('adds a delayed item at its priority when due, keeping the earlier time and the higher priority', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addAfter('a', 100, LOW_PRIORITY);
    q.addAfter('a', 50, 0);
    q.addAfter('a', 80, 7);
    expect(q.delayOf('a')).to.equal(50);
    q.add('b', 1);
    await clock.advance(50);
    expect(q.len()).to.equal(2);
    expect(q.priorityOf('a')).to.equal(7);
    expect(await drain(q)).to.deep.equal(['a', 'b']);
  });

  it('replaces a pending delay with the new time and priority', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addAfter('a', 50, 9);
    q.replaceDelayed('a', 100, LOW_PRIORITY);
    await clock.advance(60);
    expect(q.len()).to.equal(0);
    await clock.advance(40);
    expect(q.priorityOf('a')).to.equal(LOW_PRIORITY);
  });

  it('waits the rate limiter before a rate-limited add, at the priority given', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addRateLimited('a', 0, 4);
    expect(q.delayOf('a')).to.equal(10);
    q.addRateLimited('a', 0, 4);
    expect(q.numRequeues('a')).to.equal(2);
    q.forget('a');
    expect(q.numRequeues('a')).to.equal(0);
    await clock.advance(10);
    expect(q.priorityOf('a')).to.equal(4);
  });

  it('drops queued, delayed and follow-up work on remove', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.add('a');
    q.add('b', 5);
    expect(await q.get()).to.equal('b');
    q.add('b');
    q.addAfter('c', 10);
    expect(q.remove('a')).to.equal(true);
    expect(q.remove('b')).to.equal(true);
    expect(q.remove('c')).to.equal(true);
    expect(q.remove('d')).to.equal(false);
    q.done('b');
    await clock.advance(10);
    expect(q.len()).to.equal(0);
  });

  it('keeps order through many removes and raises (stale heap entries compacted)', async () => {
    const q = newQueue();
    for (let i = 0; i < 5000; i++) q.add(`k${i}`, LOW_PRIORITY);
    for (let i = 0; i < 5000; i += 2) q.remove(`k${i}`);
    for (let i = 1; i < 5000; i += 4) q.add(`k${i}`, 1);
    const order = await drain(q);
    const raised: string[] = [];
    const low: string[] = [];
    for (let i = 1; i < 5000; i += 2) ((i - 1) % 4 === 0 ? raised : low).push(`k${i}`);
    expect(order).to.deep.equal([...raised, ...low]);
  });

  it('hands an add to a worker already waiting', async () => {
    const q = newQueue();
    const next = q.get();
    q.add('a', LOW_PRIORITY);
    expect(await next).to.equal('a');
    expect(q.isProcessing('a')).to.equal(true);
  });

  it('ignores adds after shutDown, resolves waiting gets undefined, and drains the items in flight', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.add('a');
    q.add('b');
    q.addAfter('c', 10);
    expect(await q.get()).to.equal('a');
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    expect(q.shuttingDown).to.equal(true);
    q.add('d');
    expect(q.len()).to.equal(0);
    expect(q.delayedCount()).to.equal(0);
    expect(await q.get()).to.equal(undefined);
    await Promise.resolve();
    expect(drained).to.equal(false);
    q.done('a');
    await drain;
    expect(drained).to.equal(true);
  });

  it('refuses a priority that is not a finite number, saying what a priority is', () => {
    const q = newQueue();
    expect(() => q.add('a', Number.NaN)).to.throw(
      RangeError,
      /priority must be a finite number \(higher goes first, 0 by default\), got NaN/,
    );
    expect(() => q.addAfter('a', 10, Infinity)).to.throw(RangeError, /got Infinity/);
  });

  it('reports the depth per priority to its metrics provider', async () => {
    let probe: WorkQueueProbe | undefined;
    const provider: WorkQueueMetricsProvider = {
      forQueue(_name, p) {
        probe = p;
        return { added() {}, started() {}, finished() {}, retried() {} };
      },
    };
    const q = newQueue(new FakeClock(), provider);
    q.add('a', LOW_PRIORITY);
    q.add('b', LOW_PRIORITY);
    q.add('c');
    q.add('b', 0);
    expect(probe!.depth()).to.equal(3);
    expect([...probe!.depthByPriority!()]).to.have.deep.members([
      [LOW_PRIORITY, 1],
      [0, 2],
    ]);
    expect(await q.get()).to.equal('b');
    q.add('b', 2);
    expect([...probe!.depthByPriority!()]).to.have.deep.members([
      [LOW_PRIORITY, 1],
      [0, 1],
      [2, 1],
    ]);
    q.remove('a');
    expect([...probe!.depthByPriority!()]).to.have.deep.members([
      [0, 1],
      [2, 1],
    ]);
  });
});
