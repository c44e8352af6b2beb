import { expect } from 'chai';
import { FakeClock, ItemExponentialFailureRateLimiter, WorkQueue } from '../index.js';

function newQueue(clock = new FakeClock()): WorkQueue {
  return new WorkQueue({ clock, rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 10, maxDelayMs: 1000 }) });
}

describe('WorkQueue', () => {
  it('hands out items in FIFO order', async () => {
    const q = newQueue();
    q.add('a');
    q.add('b');
    expect(await q.get()).to.equal('a');
    expect(await q.get()).to.equal('b');
  });

  it('coalesces adds of a queued item', async () => {
    const q = newQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.len()).to.equal(2);
  });

  it('never hands out an item that is being processed', async () => {
    const q = newQueue();
    q.add('a');
    expect(await q.get()).to.equal('a');
    q.add('a');
    expect(q.len()).to.equal(0);
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await new Promise((r) => setImmediate(r));
    expect(second).to.equal(undefined);
    q.done('a');
    await new Promise((r) => setImmediate(r));
    expect(second).to.equal('a');
  });

  it('turns many adds during processing into exactly one follow-up', async () => {
    const q = newQueue();
    q.add('a');
    await q.get();
    for (let i = 0; i < 100; i++) q.add('a');
    q.done('a');
    expect(q.len()).to.equal(1);
    expect(await q.get()).to.equal('a');
    q.done('a');
    expect(q.len()).to.equal(0);
  });

  it('resolves a waiting get when an item is added', async () => {
    const q = newQueue();
    const pending = q.get();
    q.add('x');
    expect(await pending).to.equal('x');
    expect(q.isProcessing('x')).to.equal(true);
  });

  it('adds after a delay, keeping the earliest deadline', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addAfter('a', 100);
    q.addAfter('a', 500);
    expect(q.delayOf('a')).to.equal(100);
    q.addAfter('a', 50);
    expect(q.delayOf('a')).to.equal(50);
    await clock.advance(49);
    expect(q.len()).to.equal(0);
    await clock.advance(1);
    expect(q.len()).to.equal(1);
    await clock.advance(1000);
    expect(q.len()).to.equal(1);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('replaceDelayed moves a pending delay later without a new timer, or earlier, and adds at once for zero', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.replaceDelayed('a', 100);
    expect(clock.pendingTimers()).to.equal(1);
    await clock.advance(60);
    // Later: the armed timer stays (it re-arms for the rest when it fires).
    q.replaceDelayed('a', 100);
    expect(q.delayOf('a')).to.equal(100);
    expect(clock.pendingTimers()).to.equal(1);
    await clock.advance(99);
    expect(q.len(), 'not at the first deadline').to.equal(0);
    expect(clock.pendingTimers()).to.equal(1);
    await clock.advance(1);
    expect(q.len()).to.equal(1);
    expect(clock.pendingTimers()).to.equal(0);
    expect(await q.get()).to.equal('a');
    q.done('a');
    // Earlier: re-armed, so it fires on the new deadline.
    q.replaceDelayed('b', 500);
    q.replaceDelayed('b', 20);
    expect(clock.pendingTimers()).to.equal(1);
    await clock.advance(20);
    expect(q.len()).to.equal(1);
    expect(await q.get()).to.equal('b');
    q.done('b');
    q.replaceDelayed('c', 500);
    q.replaceDelayed('c', 0);
    expect(q.delayOf('c')).to.equal(undefined);
    expect(q.len()).to.equal(1);
    await clock.advance(1000);
    expect(q.len()).to.equal(1);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('cancelDelayed and remove also stop a delay that was moved later', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.replaceDelayed('a', 10);
    q.replaceDelayed('a', 50);
    expect(q.cancelDelayed('a')).to.equal(true);
    q.replaceDelayed('b', 10);
    q.replaceDelayed('b', 50);
    expect(q.remove('b')).to.equal(true);
    await clock.advance(100);
    expect(q.len()).to.equal(0);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('adds at once for a delay of zero', () => {
    const q = newQueue();
    q.addAfter('a', 0);
    expect(q.len()).to.equal(1);
  });

  it('waits the rate limiter delay on addRateLimited, at least minDelayMs', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addRateLimited('a');
    expect(q.delayOf('a')).to.equal(10);
    expect(q.numRequeues('a')).to.equal(1);
    q.cancelDelayed('a');
    q.addRateLimited('a', 300);
    expect(q.delayOf('a')).to.equal(300);
    q.forget('a');
    expect(q.numRequeues('a')).to.equal(0);
  });

  it('remove drops a queued item, its delayed add and its follow-up', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.add('a');
    q.add('b');
    expect(q.remove('a')).to.equal(true);
    expect(q.len()).to.equal(1);
    expect(await q.get()).to.equal('b');
    q.add('b');
    q.addAfter('b', 10);
    expect(q.remove('b')).to.equal(true);
    q.done('b');
    await clock.advance(100);
    expect(q.len()).to.equal(0);
    expect(q.remove('nothing')).to.equal(false);
  });

  it('resolves waiting gets with undefined on shutDown and ignores later adds', async () => {
    const q = newQueue();
    const pending = q.get();
    q.shutDown();
    expect(await pending).to.equal(undefined);
    q.add('a');
    expect(q.len()).to.equal(0);
    expect(await q.get()).to.equal(undefined);
  });

  it('shutDownWithDrain waits for items being processed', async () => {
    const q = newQueue();
    q.add('a');
    await q.get();
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    await new Promise((r) => setImmediate(r));
    expect(drained).to.equal(false);
    q.add('a');
    q.done('a');
    await drain;
    expect(drained).to.equal(true);
    expect(q.len()).to.equal(0);
  });

  it('cancels delayed adds on shutDown', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addAfter('a', 10);
    q.shutDown();
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('keeps FIFO order through remove and re-add churn (stale entries skipped and compacted)', async () => {
    const q = newQueue();
    for (let i = 0; i < 3000; i++) q.add(`k${i}`);
    for (let i = 0; i < 3000; i++) if (i % 10 !== 0) q.remove(`k${i}`);
    q.add('k5'); // re-added after k2990: must not jump the line through its stale entry
    const expected = [...Array.from({ length: 300 }, (_, i) => `k${i * 10}`), 'k5'];
    expect(q.len()).to.equal(expected.length);
    const got: string[] = [];
    while (q.len() > 0) got.push((await q.get()) as string);
    expect(got).to.deep.equal(expected);
  });

  it('keeps follow-ups and counts right over thousands of items taken, added again while processed and done', () => {
    const q = newQueue();
    for (let i = 0; i < 3000; i++) q.add(`k${i}`);
    const order: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const k = q.tryGet() as string;
      order.push(k);
      if (i % 3 === 0) q.add(k); // a follow-up, queued again at done
      q.add(k); // coalesces with that follow-up, or is another one for the others
      q.done(k);
      expect(q.len()).to.equal(3000); // k went back to the end of the line
    }
    expect(order).to.deep.equal(Array.from({ length: 3000 }, (_, i) => `k${i}`));
    for (let i = 0; i < 3000; i++) {
      const k = q.tryGet() as string;
      expect(k).to.equal(`k${i}`);
      q.done(k);
    }
    expect(q.tryGet()).to.equal(undefined);
    q.add('k7'); // once gone, an item is queued anew
    expect(q.len()).to.equal(1);
  });

  it('keeps FIFO order across many items (head compaction)', async () => {
    const q = newQueue();
    for (let i = 0; i < 5000; i++) q.add(`k${i}`);
    for (let i = 0; i < 5000; i++) {
      const k = await q.get();
      expect(k).to.equal(`k${i}`);
      if (i === 2500) q.add('late');
      q.done(k as string);
    }
    expect(await q.get()).to.equal('late');
  });
});
