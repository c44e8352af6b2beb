// ShardCoordinator's option values are checked where they are written: a wrong type is one
// InvalidOptionError naming the options, the key, the value and the fix, before any Lease is read.
import { expect } from 'chai';
import { InvalidOptionError } from '@kindex/core';
import { ShardCoordinator, type ShardCoordinatorOptions } from '../index.js';
import { MemoryLeases } from './memory-leases.fixture.test.js';

const valid: ShardCoordinatorOptions = { group: 'g', shards: 4, identity: 'replica-a', store: new MemoryLeases().view(() => false) };

function invalid(options: object): InvalidOptionError {
  try {
    new ShardCoordinator({ ...valid, ...options });
  } catch (error) {
    if (error instanceof InvalidOptionError) return error;
    throw error;
  }
  expect.fail('expected an InvalidOptionError');
}

describe('ShardCoordinator options', () => {
  it('refuses a field it cannot hash, naming the two it can', () => {
    const error = invalid({ field: 'metadata.namespace' });
    expect(error.code).to.equal('KINDEX_INVALID_OPTION');
    expect(error.message).to.contain('ShardCoordinator options.field');
    expect(error.message).to.contain("'object.metadata.namespace' or 'object.metadata.uid'");
  });

  it('refuses an empty group and callbacks that are not functions', () => {
    expect(invalid({ group: '' }).message).to.contain('ShardCoordinator options.group');
    expect(invalid({ onRelease: true }).message).to.contain('ShardCoordinator options.onRelease');
    expect(invalid({ population: ['a'] }).message).to.contain('ShardCoordinator options.population');
  });

  it('accepts the options as documented', () => {
    const coordinator = new ShardCoordinator({ ...valid, field: 'object.metadata.uid', onRelease: () => Promise.resolve() });
    expect(coordinator.field).to.equal('object.metadata.uid');
  });
});
