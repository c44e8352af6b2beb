// The reflector options of an event source are checked by the builder step that takes them: a
// wrong value is one InvalidOptionError naming the source, the key, the value and the fix.
import { expect } from 'chai';
import { catchInvalidOption } from '@kindex/testing/internal';
import { InvalidOptionError } from '@kindex/core';
import { InformerEventSource, Kinds } from '../index.js';

describe('InformerEventSource builder: reflector options', () => {
  it('refuses a value out of range where it is written, naming the source', async () => {
    const error = await catchInvalidOption(() =>
      InformerEventSource.from(Kinds.ConfigMap).withName('maps').withReflectorOptions({ pageSize: 0 }),
    );
    expect(error.code).to.equal('KINDEX_INVALID_OPTION');
    expect(error.message).to.contain('event source maps reflector options.pageSize');
    expect(error.message).to.contain('a whole number of objects per list page, 1 or more');
  });

  it('refuses a watch timeout that is not a whole number of seconds', () => {
    expect(() => InformerEventSource.from(Kinds.ConfigMap).withName('maps').withReflectorOptions({ watchTimeoutSeconds: 1.5 })).to.throw(
      InvalidOptionError,
      /event source maps reflector options\.watchTimeoutSeconds/,
    );
  });

  it('accepts the options as documented', () => {
    const builder = InformerEventSource.from(Kinds.ConfigMap).withReflectorOptions({
      pageSize: 100,
      watchTimeoutSeconds: 120,
      backoff: { maxMs: 10_000 },
    });
    expect(builder).to.be.instanceOf(Object);
  });
});
