import { expect } from 'chai';
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  FakeClock,
  GenericRetry,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
} from '../index.js';

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles from 5 ms per failure and caps at 1000 s by default', () => {
    const l = new ItemExponentialFailureRateLimiter();
    expect([1, 2, 3, 4].map(() => l.when('a'))).to.deep.equal([5, 10, 20, 40]);
    for (let i = 0; i < 100; i++) l.when('a');
    expect(l.when('a')).to.equal(1_000_000);
    expect(l.numRequeues('a')).to.equal(105);
  });

  it('tracks items separately and restarts after forget', () => {
    const l = new ItemExponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 100 });
    l.when('a');
    l.when('a');
    expect(l.when('b')).to.equal(1);
    l.forget('a');
    expect(l.when('a')).to.equal(1);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst through, then spaces requests at qps', async () => {
    const clock = new FakeClock();
    const l = new BucketRateLimiter({ qps: 10, burst: 3, clock });
    expect([l.when('a'), l.when('b'), l.when('c')]).to.deep.equal([0, 0, 0]);
    expect(l.when('d')).to.equal(100);
    expect(l.when('e')).to.equal(200);
    await clock.advance(1000);
    // 10 tokens came back (capped at burst 3) minus the 2 reserved.
    expect(l.when('f')).to.equal(0);
  });

  it('defaults to 10/s with a burst of 100', () => {
    const l = new BucketRateLimiter({ clock: new FakeClock() });
    for (let i = 0; i < 100; i++) expect(l.when('x')).to.equal(0);
    expect(l.when('x')).to.equal(100);
  });
});

describe('MaxOfRateLimiter', () => {
  it('waits the longest of its limiters and forgets in all', () => {
    const clock = new FakeClock();
    const l = new MaxOfRateLimiter(
      new ItemExponentialFailureRateLimiter({ baseDelayMs: 50 }),
      new BucketRateLimiter({ qps: 1, burst: 1, clock }),
    );
    expect(l.when('a')).to.equal(50);
    expect(l.when('a')).to.equal(1000);
    expect(l.numRequeues('a')).to.equal(2);
    l.forget('a');
    expect(l.numRequeues('a')).to.equal(0);
  });
});

describe('defaultControllerRateLimiter', () => {
  it('starts at 5 ms per item', () => {
    const l = defaultControllerRateLimiter(new FakeClock());
    expect(l.when('a')).to.equal(5);
    expect(l.when('a')).to.equal(10);
  });
});

describe('GenericRetry', () => {
  it('retries 5 times by default, from 2 s by x1.5, then gives up', () => {
    const exec = new GenericRetry().initExecution();
    expect(exec.attemptCount).to.equal(0);
    const delays: (number | undefined)[] = [];
    for (let i = 0; i < 6; i++) delays.push(exec.nextDelay());
    expect(delays).to.deep.equal([2000, 3000, 4500, 6750, 10125, undefined]);
    expect(exec.attemptCount).to.equal(5);
    expect(exec.isLastAttempt).to.equal(true);
  });

  it('caps each wait at maxIntervalMs', () => {
    const exec = new GenericRetry({ maxAttempts: 10, initialIntervalMs: 100, intervalMultiplier: 10, maxIntervalMs: 5000 }).initExecution();
    expect([exec.nextDelay(), exec.nextDelay(), exec.nextDelay()]).to.deep.equal([100, 1000, 5000]);
  });

  it('never retries with noRetry and forever with -1', () => {
    expect(GenericRetry.noRetry().initExecution().nextDelay()).to.equal(undefined);
    const forever = new GenericRetry({ maxAttempts: -1 }).initExecution();
    for (let i = 0; i < 1000; i++) expect(forever.nextDelay()).to.be.a('number');
    expect(forever.isLastAttempt).to.equal(false);
  });

  it('rejects a negative multiplier or attempts below -1', () => {
    expect(() => new GenericRetry({ maxAttempts: -2 })).to.throw(RangeError);
    expect(() => new GenericRetry({ intervalMultiplier: 0.5 })).to.throw(RangeError);
  });
});
