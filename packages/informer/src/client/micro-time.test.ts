import { expect } from 'chai';
import { microTime } from '../index.js';

describe('microTime', () => {
  it('writes RFC 3339 in UTC with exactly six fractional digits, as metav1.MicroTime', () => {
    expect(microTime(Date.UTC(2026, 10, 25, 18, 0, 0, 123))).to.equal('2026-11-25T18:00:00.123000Z');
    expect(microTime(Date.UTC(2026, 0, 1))).to.equal('2026-01-01T00:00:00.000000Z');
  });
});
