import { expect } from 'chai';
import { nextBookmarkAt } from './watch-hub.js';

describe('nextBookmarkAt', () => {
  it('is one interval away without a deadline, or when the deadline is further than interval + 2 s', () => {
    expect(nextBookmarkAt(1000, 60_000, undefined)).to.equal(61_000);
    expect(nextBookmarkAt(1000, 60_000, 1000 + 300_000)).to.equal(61_000);
  });

  it('is 2 s before the deadline when that comes first, and none once that moment has passed', () => {
    expect(nextBookmarkAt(1000, 60_000, 6000)).to.equal(4000);
    expect(nextBookmarkAt(5000, 60_000, 6000)).to.equal(undefined);
  });

  it('sends the pre-timeout bookmark once: rescheduled at that very moment, there is none', () => {
    expect(nextBookmarkAt(4000, 60_000, 6000)).to.equal(undefined);
  });
});
