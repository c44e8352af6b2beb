import { expect } from 'chai';
import { isJsonObject } from '../internal.js';

describe('isJsonObject', () => {
  it('accepts objects, including empty and frozen ones', () => {
    expect(isJsonObject({})).to.equal(true);
    expect(isJsonObject(Object.freeze({ metadata: { name: 'a' } }))).to.equal(true);
  });

  it('rejects arrays, null and primitives', () => {
    for (const v of [[], [{}], null, undefined, 'x', 0, true]) expect(isJsonObject(v), String(v)).to.equal(false);
  });
});
