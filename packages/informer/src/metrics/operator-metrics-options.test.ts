// OperatorMetrics' option values are checked where they are written: a wrong type is one
// InvalidOptionError naming the options, the key, the value and the fix, before any series exists.
import { expect } from 'chai';
import { InvalidOptionError } from '@kindex/core';
import { Registry } from 'prom-client';
import { OperatorMetrics } from '../index.js';

describe('OperatorMetrics options', () => {
  it('refuses a processMetrics that is not a boolean, naming the key and the fix', () => {
    let caught: unknown;
    try {
      new OperatorMetrics({ processMetrics: 'yes' } as never);
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(InvalidOptionError);
    expect((caught as InvalidOptionError).code).to.equal('KINDEX_INVALID_OPTION');
    expect((caught as Error).message).to.contain('OperatorMetrics options.processMetrics');
    expect((caught as Error).message).to.contain('true or false');
  });

  it('fills the registry it is given', async () => {
    const registry = new Registry();
    const metrics = new OperatorMetrics({ registry, processMetrics: false });
    expect(metrics.registry).to.equal(registry);
    expect(await registry.metrics()).to.contain('leader_election_master_status');
  });
});
