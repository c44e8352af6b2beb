import { expect } from 'chai';
import {
  BucketRateLimiter,
  enqueueForOwner,
  IndexedStore,
  GenericRetry,
  ItemExponentialFailureRateLimiter,
  PerResourcePollingEventSource,
  PollingEventSource,
  PrimaryToSecondaryIndex,
  secondaryType,
  TimerEventSource,
  UnknownOptionError,
  WorkQueue,
} from '../index.js';
import { eventSourceHandle } from '../internal.js';

// Every options object of @kindex/core rejects keys it does not know, naming all of them with
// the closest accepted key.

function unknownOptionError(attempt: () => unknown): UnknownOptionError {
  try {
    attempt();
  } catch (error) {
    if (error instanceof UnknownOptionError) return error;
    throw error;
  }
  expect.fail('expected an UnknownOptionError, got none: the unknown key was ignored');
}

const polled = secondaryType<{ readonly v: number }>('polled');

const SITES: readonly {
  readonly site: string;
  readonly attempt: () => unknown;
  readonly unknown: readonly (readonly [path: string, suggestion: string | undefined])[];
}[] = [
  {
    site: 'TimerEventSource',
    attempt: () => new TimerEventSource({ nmae: 'timer' } as never),
    unknown: [['TimerEventSource options.nmae', 'name']],
  },
  {
    site: 'PollingEventSource',
    attempt: () => new PollingEventSource({ resourceType: polled, period: 10, fetch: () => Promise.resolve([]) } as never),
    unknown: [['PollingEventSource options.period', 'periodMs']],
  },
  {
    site: 'PerResourcePollingEventSource',
    attempt: () =>
      new PerResourcePollingEventSource({
        resourceType: polled,
        periodMs: 10,
        fetch: () => Promise.resolve([]),
        primaries: () => [],
        concurency: 2,
        equal: () => true,
      } as never),
    unknown: [
      ['PerResourcePollingEventSource options.concurency', 'concurrency'],
      ['PerResourcePollingEventSource options.equal', 'equals'],
    ],
  },
  {
    site: 'GenericRetry',
    attempt: () => new GenericRetry({ maxAttempt: 3 } as never),
    unknown: [['GenericRetry options.maxAttempt', 'maxAttempts']],
  },
  {
    site: 'ItemExponentialFailureRateLimiter',
    attempt: () => new ItemExponentialFailureRateLimiter({ baseDelay: 5 } as never),
    unknown: [['ItemExponentialFailureRateLimiter options.baseDelay', 'baseDelayMs']],
  },
  {
    site: 'BucketRateLimiter',
    attempt: () => new BucketRateLimiter({ qsp: 5 } as never),
    unknown: [['BucketRateLimiter options.qsp', 'qps']],
  },
  {
    site: 'WorkQueue',
    attempt: () => new WorkQueue({ ratelimiter: undefined } as never),
    unknown: [['WorkQueue options.ratelimiter', 'rateLimiter']],
  },
  {
    site: 'enqueueForOwner',
    attempt: () => enqueueForOwner({ group: 'apps', kind: 'Deployment', controlerOnly: true } as never),
    unknown: [['enqueueForOwner options.controlerOnly', 'controllerOnly']],
  },
  {
    site: 'IndexedStore',
    attempt: () => new IndexedStore({ assumeFrozn: true } as never),
    unknown: [['IndexedStore options.assumeFrozn', 'assumeFrozen']],
  },
  {
    site: 'PrimaryToSecondaryIndex',
    attempt: () => new PrimaryToSecondaryIndex({ toPrimaryIds: () => [], mapperInputEqual: () => true } as never),
    unknown: [['PrimaryToSecondaryIndex options.mapperInputEqual', 'mapperInputsEqual']],
  },
  {
    site: 'eventSourceHandle',
    attempt: () => eventSourceHandle({ type: polled, className: 'X', accepts: () => true, sourceName: 'x' } as never),
    unknown: [['eventSourceHandle options.sourceName', 'eventSourceName']],
  },
];

describe('unknown option keys at every options site of @kindex/core', () => {
  for (const { site, attempt, unknown } of SITES) {
    it(`rejects them: ${site}`, () => {
      const error = unknownOptionError(attempt);
      expect(error.unknown.map((u) => [u.path, u.suggestion])).to.deep.equal(unknown);
      for (const u of error.unknown)
        expect(error.message)
          .to.contain(u.path)
          .and.to.contain(`accepts: ${u.accepted.join(', ')}`);
    });
  }

  it('accepts the documented keys', () => {
    new TimerEventSource({ name: 't' });
    new PollingEventSource({ name: 'p', resourceType: polled, periodMs: 10, equals: () => true, fetch: () => Promise.resolve([]) });
    new GenericRetry({ maxAttempts: 1, initialIntervalMs: 1, intervalMultiplier: 2, maxIntervalMs: 5 });
    new BucketRateLimiter({ qps: 1, burst: 2 });
    enqueueForOwner({ group: 'apps', kind: 'Deployment', controllerOnly: true, clusterScopedOwner: false, name: 'owner' });
  });
});
