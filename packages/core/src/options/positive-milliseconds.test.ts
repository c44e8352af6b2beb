import { expect } from 'chai';
import { InvalidOptionError } from '../index.js';
import { positiveMilliseconds } from '../internal.js';

describe('positiveMilliseconds', () => {
  it('passes a positive finite number and an absent value through', () => {
    expect(positiveMilliseconds(1, 'x')).to.equal(1);
    expect(positiveMilliseconds(0.5, 'x')).to.equal(0.5);
    expect(positiveMilliseconds(undefined, 'x')).to.equal(undefined);
  });

  it('rejects zero, negatives, NaN, Infinity and non-numbers, naming the option and the value', () => {
    const cases: [unknown, string][] = [
      [0, 'got 0'],
      [-5, 'got -5'],
      [Number.NaN, 'got NaN'],
      [Number.POSITIVE_INFINITY, 'got Infinity'],
      ['30s', 'got "30s"'],
      [null, 'got null'],
    ];
    for (const [value, got] of cases) {
      expect(() => positiveMilliseconds(value, 'poller: periodMs')).to.throw(
        RangeError,
        `poller: periodMs must be a positive number of milliseconds, ${got}`,
      );
      expect(() => positiveMilliseconds(value, 'poller: periodMs'))
        .to.throw(InvalidOptionError)
        .that.includes({ code: 'KINDEX_INVALID_OPTION', options: 'poller', key: 'periodMs' });
    }
  });
});
