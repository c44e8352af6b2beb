import { expect } from 'chai';
import { FakeClock, ItemExponentialFailureRateLimiter, PriorityWorkQueue, WorkQueue } from '../index.js';

// The pull side both queues share (what the event processor uses): tryGet never waits, and
// onAvailable announces every item that starts waiting, whatever put it there.
for (const Queue of [WorkQueue, PriorityWorkQueue]) {
  const newQueue = (clock: FakeClock) =>
    new Queue({ clock, rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 10, maxDelayMs: 1000 }) });

  describe(`${Queue.name}: tryGet and onAvailable`, () => {
    it('takes the next waiting item without waiting, marks it processing, and returns undefined when none waits', () => {
      const q = newQueue(new FakeClock());
      expect(q.tryGet()).to.equal(undefined);
      q.add('a');
      q.add('b');
      expect(q.tryGet()).to.equal('a');
      expect(q.isProcessing('a')).to.equal(true);
      q.add('a'); // during processing: a follow-up, not takeable until done
      expect(q.tryGet()).to.equal('b');
      expect(q.tryGet()).to.equal(undefined);
      q.done('a');
      expect(q.tryGet()).to.equal('a');
    });

    it('announces an add, a delayed add coming due and a follow-up released by done, each once, after it waits', async () => {
      const clock = new FakeClock();
      const q = newQueue(clock);
      const seen: (string | undefined)[] = [];
      // The listener may take at once: the item is already queued when it is called.
      q.onAvailable(() => seen.push(q.tryGet()));
      q.add('a');
      expect(seen).to.deep.equal(['a']);
      q.add('a'); // processing now: becomes a follow-up, announced only when released
      q.add('a');
      expect(seen).to.deep.equal(['a']);
      q.addAfter('b', 50);
      expect(seen).to.deep.equal(['a']);
      await clock.advance(50);
      expect(seen).to.deep.equal(['a', 'b']);
      q.done('a');
      expect(seen).to.deep.equal(['a', 'b', 'a']);
    });

    it('announces nothing for an add a waiting get takes, nor after shutDown, and tryGet then returns undefined', async () => {
      const q = newQueue(new FakeClock());
      let announced = 0;
      q.onAvailable(() => announced++);
      const got = q.get();
      q.add('a');
      expect(await got).to.equal('a');
      expect(announced).to.equal(0);
      q.add('b');
      expect(announced).to.equal(1);
      q.shutDown();
      q.add('c');
      expect(announced).to.equal(1);
      expect(q.tryGet()).to.equal(undefined);
    });

    it('keeps one listener: a later onAvailable replaces it, and undefined removes it', () => {
      const q = newQueue(new FakeClock());
      const calls: string[] = [];
      q.onAvailable(() => calls.push('first'));
      q.onAvailable(() => calls.push('second'));
      q.add('a');
      q.onAvailable(undefined);
      q.add('b');
      expect(calls).to.deep.equal(['second']);
    });
  });
}
