import { AssertionError } from 'node:assert/strict';
import { expect } from 'chai';
import { BucketRateLimiter, InvalidOptionError } from '@kindex/core';
import { catchInvalidOption } from '../internal.js';

describe('catchInvalidOption', () => {
  it('returns the InvalidOptionError thrown or rejected with', async () => {
    const thrown = await catchInvalidOption(() => new BucketRateLimiter({ qps: 0 }));
    expect([thrown.options, thrown.key, thrown.value]).to.deep.equal(['BucketRateLimiter options', 'qps', 0]);
    const rejected = await catchInvalidOption(() =>
      Promise.reject(new InvalidOptionError({ options: 'o', key: 'k', value: 1, problem: 'p', fix: 'f' })),
    );
    expect(rejected.fix).to.equal('f');
  });

  it('fails when the bad value was taken, or another error came', async () => {
    const taken = await catchInvalidOption(() => new BucketRateLimiter({ qps: 1 })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(taken)
      .to.be.instanceOf(AssertionError)
      .with.property('message', 'expected an InvalidOptionError, got none: the bad value was taken');
    const other = await catchInvalidOption(() => {
      throw new TypeError('boom');
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(other).to.be.instanceOf(AssertionError).with.property('message', 'expected an InvalidOptionError, got TypeError: boom');
  });
});
