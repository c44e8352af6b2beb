// ShardCoordinator's option values are checked where they are written: a wrong type is one
// InvalidOptionError naming the options, the key, the value and the fix, before any Lease is read.
import { expect } from 'chai';
import type { InvalidOptionError } from '@kindex/core';
import { catchInvalidOption } from '@kindex/testing/internal';
import { ShardCoordinator, type ShardCoordinatorOptions } from '../index.js';
import { MemoryLeases } from './memory-leases.fixture.test.js';

const valid: ShardCoordinatorOptions = { group: 'g', shards: 4, identity: 'replica-a', store: new MemoryLeases().view(() => false) };

function invalid(options: object): Promise<InvalidOptionError> {
  return catchInvalidOption(() => new ShardCoordinator({ ...valid, ...options }));
}

describe('ShardCoordinator options', () => {
  it('refuses a field it cannot hash, naming the two it can', async () => {
    const error = await invalid({ field: 'metadata.namespace' });
    expect(error.code).to.equal('KINDEX_INVALID_OPTION');
    expect(error.message).to.contain('ShardCoordinator options.field');
    expect(error.message).to.contain("'object.metadata.namespace' or 'object.metadata.uid'");
  });

  it('refuses an empty group and callbacks that are not functions', async () => {
    expect((await invalid({ group: '' })).message).to.contain('ShardCoordinator options.group');
    expect((await invalid({ onRelease: true })).message).to.contain('ShardCoordinator options.onRelease');
    expect((await invalid({ population: ['a'] })).message).to.contain('ShardCoordinator options.population');
  });

  it('accepts the options as documented', () => {
    const coordinator = new ShardCoordinator({ ...valid, field: 'object.metadata.uid', onRelease: () => Promise.resolve() });
    expect(coordinator.field).to.equal('object.metadata.uid');
  });
});
