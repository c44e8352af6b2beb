import { expect } from 'chai';
import { FakeClock, systemClock } from '../index.js';

describe('FakeClock', () => {
  it('fires due timers in deadline order, each seeing its own deadline as now', async () => {
    const clock = new FakeClock(1000);
    const fired: [string, number][] = [];
    clock.setTimeout(() => fired.push(['late', clock.now()]), 30);
    clock.setTimeout(() => fired.push(['early', clock.now()]), 10);
    clock.setTimeout(() => fired.push(['tie', clock.now()]), 10);
    await clock.advance(20);
    expect(fired).to.deep.equal([
      ['early', 1010],
      ['tie', 1010],
    ]);
    expect(clock.now()).to.equal(1020);
    await clock.advance(10);
    expect(fired.at(-1)).to.deep.equal(['late', 1030]);
  });

  it('fires a timer armed by another timer within the same advance', async () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    clock.setTimeout(() => {
      fired.push(clock.now());
      clock.setTimeout(() => fired.push(clock.now()), 5);
    }, 5);
    await clock.advance(10);
    expect(fired).to.deep.equal([5, 10]);
  });

  it('lets async work started by a timer settle before the next timer fires', async () => {
    const clock = new FakeClock();
    const log: string[] = [];
    clock.setTimeout(() => {
      void Promise.resolve().then(() => log.push('first settled'));
    }, 1);
    clock.setTimeout(() => log.push('second fired'), 2);
    await clock.advance(2);
    expect(log).to.deep.equal(['first settled', 'second fired']);
  });

  it('does not fire cleared timers', async () => {
    const clock = new FakeClock();
    let fired = false;
    const handle = clock.setTimeout(() => (fired = true), 1);
    clock.clearTimeout(handle);
    await clock.advance(5);
    expect(fired).to.equal(false);
    expect(clock.pendingTimers()).to.equal(0);
  });
});

describe('systemClock', () => {
  it('runs a timer and can cancel one', async () => {
    let cancelled = false;
    const handle = systemClock.setTimeout(() => (cancelled = true), 1);
    systemClock.clearTimeout(handle);
    await new Promise<void>((resolve) => systemClock.setTimeout(resolve, 1));
    expect(cancelled).to.equal(false);
    expect(systemClock.now()).to.be.closeTo(Date.now(), 1000);
  });
});
