// The operator server's option values are checked where they are written: a wrong type is one
// InvalidOptionError naming the options, the key, the value and the fix, before any port is bound.
import { expect } from 'chai';
import { catchInvalidOption } from '@kindex/testing/internal';
import { InformerRegistry, OperatorServer } from '../index.js';
import { SourceHealthMonitor } from '../internal.js';

describe('operator server options', () => {
  it('refuses a value of the wrong type, naming the option and the fix', async () => {
    const error = await catchInvalidOption(() => new OperatorServer({ port: 0, debug: 'yes' } as never, {} as never));
    expect(error.code).to.equal('KINDEX_INVALID_OPTION');
    expect(error.message).to.contain('OperatorServer options.debug');
    expect(error.message).to.contain('true or false');
  });

  it('checks secure serving options by their own declaration: unknown keys and review cache periods', async () => {
    expect(() => new OperatorServer({ port: 0, healthProbePort: 0, secure: { certFil: 'x' } } as never, {} as never)).to.throw(
      /OperatorServer options\.secure\.certFil \(did you mean "certFile"\?\)/,
    );
    const error = await catchInvalidOption(
      () => new OperatorServer({ port: 0, healthProbePort: 0, secure: { reviewCacheTtl: { allowedMs: -1 } } }, {} as never),
    );
    expect(error.message).to.contain('OperatorServer options.secure.reviewCacheTtl.allowedMs');
    expect(error.message).to.contain('a number of milliseconds, 0 or more');
  });

  it('refuses a source health monitor sampling period that is not positive', async () => {
    const error = await catchInvalidOption(
      () => new SourceHealthMonitor({ registry: new InformerRegistry(), controllers: () => [], unhealthyAfterMs: 1, sampleEveryMs: 0 }),
    );
    expect(error.message).to.contain('SourceHealthMonitor options.sampleEveryMs');
  });
});
