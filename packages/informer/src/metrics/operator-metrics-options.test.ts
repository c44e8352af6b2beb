// OperatorMetrics' option values are checked where they are written: a wrong type is one
// InvalidOptionError naming the options, the key, the value and the fix, before any series exists.
import { expect } from 'chai';
import { catchInvalidOption } from '@kindex/testing/internal';
import { Registry } from 'prom-client';
import { OperatorMetrics } from '../index.js';

describe('OperatorMetrics options', () => {
  it('refuses a processMetrics that is not a boolean, naming the key and the fix', async () => {
    const error = await catchInvalidOption(() => new OperatorMetrics({ processMetrics: 'yes' } as never));
    expect(error.code).to.equal('KINDEX_INVALID_OPTION');
    expect(error.message).to.contain('OperatorMetrics options.processMetrics');
    expect(error.message).to.contain('true or false');
  });

  it('fills the registry it is given', async () => {
    const registry = new Registry();
    const metrics = new OperatorMetrics({ registry, processMetrics: false });
    expect(metrics.registry).to.equal(registry);
    expect(await registry.metrics()).to.contain('leader_election_master_status');
  });
});
