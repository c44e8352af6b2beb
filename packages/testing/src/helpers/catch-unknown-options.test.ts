import { expect } from 'chai';
import { UnknownOptionError } from '@kindex/core';
import { rejectUnknownOptions } from '@kindex/core/internal';
import { catchUnknownOptions } from '../internal.js';

const keys = { port: true, host: true } as const;

describe('catchUnknownOptions', () => {
  it('returns the UnknownOptionError thrown, or rejected with, and checks the keys it names', async () => {
    const thrown = await catchUnknownOptions(() => rejectUnknownOptions('o', { prot: 1 }, keys), [['o.prot', 'port']]);
    expect(thrown).to.be.instanceOf(UnknownOptionError);
    const rejected = await catchUnknownOptions(() => Promise.resolve().then(() => rejectUnknownOptions('o', { zzz: 1 }, keys)));
    expect(rejected.paths).to.deep.equal(['o.zzz']);
  });

  it('fails when the unknown keys were ignored, or another error came', async () => {
    const ignored = await catchUnknownOptions(() => undefined).catch((e: unknown) => e);
    expect(ignored).to.have.property('name', 'AssertionError');
    expect((ignored as Error).message).to.contain('the unknown keys were ignored');
    const other = await catchUnknownOptions(() => {
      throw new RangeError('port out of range');
    }).catch((e: unknown) => e);
    expect((other as Error).message).to.contain('RangeError: port out of range');
  });

  it('fails when the error names other keys or suggestions than expected', async () => {
    const wrongKey = await catchUnknownOptions(() => rejectUnknownOptions('o', { prot: 1 }, keys), [['o.other', 'port']]).catch(
      (e: unknown) => e,
    );
    expect(wrongKey).to.have.property('name', 'AssertionError');
    const wrongSuggestion = await catchUnknownOptions(() => rejectUnknownOptions('o', { prot: 1 }, keys), [['o.prot', 'host']]).catch(
      (e: unknown) => e,
    );
    expect(wrongSuggestion).to.have.property('name', 'AssertionError');
  });
});
