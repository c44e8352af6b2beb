import { expect } from 'chai';
import { Backoff } from './backoff.js';

describe('Backoff', () => {
  it('doubles from 800 ms up to the 30 s ceiling by default', () => {
    let now = 0;
    const backoff = new Backoff(
      {},
      () => now,
      () => 0,
    );
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      delays.push(backoff.next());
      now += 1000;
    }
    expect(delays).to.deep.equal([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
  });

  it('draws jitter within [d × (1 − jitter/2), d]', () => {
    const low = new Backoff(
      { initialMs: 1000 },
      () => 0,
      () => 1,
    );
    const high = new Backoff(
      { initialMs: 1000 },
      () => 0,
      () => 0,
    );
    const partial = new Backoff(
      { initialMs: 1000, jitter: 0.5 },
      () => 0,
      () => 1,
    );
    expect(low.next()).to.equal(500);
    expect(high.next()).to.equal(1000);
    expect(partial.next()).to.equal(750);
  });

  it('starts again from the initial delay after a healthy period', () => {
    let now = 0;
    const backoff = new Backoff({ initialMs: 100, resetAfterMs: 10_000, jitter: 0 }, () => now);
    backoff.next();
    backoff.next();
    expect(backoff.next()).to.equal(400);
    now += 10_000;
    expect(backoff.next()).to.equal(100);
  });

  it('rejects settings that cannot work', () => {
    expect(() => new Backoff({ initialMs: 10, maxMs: 5 })).to.throw(RangeError);
    expect(() => new Backoff({ factor: 0.5 })).to.throw(RangeError);
  });
});
