import { expect } from 'chai';
import fc from 'fast-check';
import { uniqueName } from '../index.js';

const DNS_1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

describe('uniqueName', () => {
  it('starts with the prefix', () => {
    expect(uniqueName('config')).to.match(/^config-/);
  });

  it('returns a DNS-1123 label of at most 63 characters for any prefix', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), (prefix) => {
        const name = uniqueName(prefix);
        expect(name).to.match(DNS_1123_LABEL);
        expect(name.length).to.be.at.most(63);
      }),
    );
  });

  it('never returns the same name twice', () => {
    const names = new Set<string>();
    for (let i = 0; i < 5000; i++) names.add(uniqueName('same'));
    expect(names.size).to.equal(5000);
  });
});
