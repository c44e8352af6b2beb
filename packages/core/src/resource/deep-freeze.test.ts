import { expect } from 'chai';
import { deepFreeze } from '../internal.js';

describe('deepFreeze', () => {
  it('freezes nested objects and arrays and returns the same value', () => {
    const o = { a: { b: [1, { c: 'x' }] }, d: 'e' };
    expect(deepFreeze(o)).to.equal(o);
    expect(Object.isFrozen(o.a.b[1])).to.equal(true);
    expect(() => {
      (o.a.b as unknown[]).push(2);
    }).to.throw(TypeError);
  });

  it('leaves primitives alone', () => {
    expect(deepFreeze('x')).to.equal('x');
    expect(deepFreeze(null)).to.equal(null);
  });
});
