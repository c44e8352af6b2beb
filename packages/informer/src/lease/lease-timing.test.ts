import { expect } from 'chai';
import {
  LeaderElectionConfigError,
  LeaderElector,
  LeaseConfigError,
  ShardCoordinator,
  ShardingConfigError,
  type LeaseStore,
  type LeaseTiming,
  type ShardLeaseStore,
} from '../index.js';

/** Never called: every case here fails in the constructor. */
const unused = (): never => expect.fail('no lease call expected');
const leaseStore: LeaseStore = { description: 'ops/op', get: unused, create: unused, update: unused };
const shardStore: ShardLeaseStore = { description: 'ops/g', list: unused, create: unused, update: unused };

const elect = (timing: LeaseTiming) => () => new LeaderElector({ store: leaseStore, identity: 'a', ...timing });
const shard = (timing: LeaseTiming) => () => new ShardCoordinator({ group: 'g', shards: 4, identity: 'a', store: shardStore, ...timing });

describe('LeaseTiming', () => {
  it('is checked by one set of rules for leader election and sharding, each naming its own option and the fix', () => {
    const cases: [LeaseTiming, string][] = [
      [{ retryPeriodMs: -1 }, 'retryPeriodMs = -1: must be a positive number of milliseconds'],
      [{ leaseDurationMs: Number.NaN }, 'leaseDurationMs = null: must be a positive number of milliseconds'],
      [
        { leaseDurationMs: 500, renewDeadlineMs: 300, retryPeriodMs: 100 },
        'leaseDurationMs = 500: must be at least 1000 (the Lease stores whole seconds)',
      ],
      [{ leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }, 'leaseDurationMs = 10000: must exceed renewDeadlineMs (10000) so a'],
    ];
    for (const [timing, message] of cases) {
      expect(elect(timing), JSON.stringify(timing)).to.throw(LeaderElectionConfigError, `leaderElection.${message}`);
      expect(shard(timing), JSON.stringify(timing)).to.throw(ShardingConfigError, `sharding.${message}`);
    }
  });

  it('throws a LeaseConfigError from either, carrying the option, the field and the value', () => {
    const thrown = (make: () => unknown): unknown => {
      try {
        make();
      } catch (error) {
        return error;
      }
      return expect.fail('no error thrown');
    };
    const timing = { leaseDurationMs: 10_000, renewDeadlineMs: 10_000 };
    for (const [error, option] of [
      [thrown(elect(timing)), 'leaderElection'],
      [thrown(shard(timing)), 'sharding'],
    ] as const) {
      expect(error).to.be.instanceOf(LeaseConfigError).and.to.include({ option, field: 'leaseDurationMs', value: 10_000 });
    }
  });

  it('defaults to client-go timings for both', () => {
    for (const owner of [elect({})(), shard({})()]) {
      expect([owner.leaseDurationMs, owner.renewDeadlineMs, owner.retryPeriodMs]).to.deep.equal([15_000, 10_000, 2_000]);
    }
  });

  it('rejects a sharding renew deadline within one retry period: ownership would lapse before every renewal', () => {
    expect(shard({ leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 })).to.throw(
      ShardingConfigError,
      'sharding.renewDeadlineMs = 2000: must exceed retryPeriodMs (2000) so an owner renews before its ownership lapses',
    );
    expect(shard({ leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 1_999 })).not.to.throw();
  });

  it('rejects a leader election renew deadline within 1.2 retry periods (its attempts are jittered), where sharding accepts it', () => {
    const timing = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 1_800 };
    expect(elect(timing)).to.throw(
      LeaderElectionConfigError,
      'leaderElection.renewDeadlineMs = 2000: must exceed 1.2 × retryPeriodMs (1800) so a leader gets more than one try to renew',
    );
    expect(shard(timing)).not.to.throw();
  });
});
