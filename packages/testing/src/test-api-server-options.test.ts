import { expect } from 'chai';
import { UnknownOptionError } from '@kindex/core';
import { startEmbeddedApiServer, startRealApiServer, startTestApiServer, useTestApiServer, type TestApiServer } from './index.js';

// The test servers' options reject unknown keys (issue 18, item 5) before anything starts, on
// whichever server KINDEX_APISERVER selects.

async function unknownOptionError(attempt: () => unknown): Promise<UnknownOptionError> {
  try {
    await attempt();
  } catch (error) {
    if (error instanceof UnknownOptionError) return error;
    throw error;
  }
  expect.fail('expected an UnknownOptionError, got none: the unknown key was ignored');
}

const SITES: readonly {
  readonly site: string;
  readonly attempt: () => unknown;
  readonly unknown: readonly (readonly [path: string, suggestion: string | undefined])[];
}[] = [
  {
    site: 'startTestApiServer',
    attempt: () => startTestApiServer({ historyWindw: 5, bookmarkInterval: 10 } as never),
    unknown: [
      ['startTestApiServer options.historyWindw', 'historyWindow'],
      ['startTestApiServer options.bookmarkInterval', 'bookmarkIntervalMs'],
    ],
  },
  {
    // An embedded-only key would pass on one server and fail on the other: rejected on both.
    site: 'startTestApiServer, with a key only the embedded server knows',
    attempt: () => startTestApiServer({ tls: true } as never),
    unknown: [['startTestApiServer options.tls', undefined]],
  },
  {
    site: 'startEmbeddedApiServer',
    attempt: () => startEmbeddedApiServer({ hots: '127.0.0.1', gcDelay: 1 } as never),
    unknown: [
      ['startEmbeddedApiServer options.hots', 'host'],
      ['startEmbeddedApiServer options.gcDelay', 'gcDelayMs'],
    ],
  },
  {
    site: 'startRealApiServer (before it looks for binaries or starts a process)',
    attempt: () => startRealApiServer({ startTimeout: 1, extraApiserverArg: [] } as never),
    unknown: [
      ['startRealApiServer options.startTimeout', 'startTimeoutMs'],
      ['startRealApiServer options.extraApiserverArg', 'extraApiServerArgs'],
    ],
  },
  {
    site: 'useTestApiServer (when the suite is declared)',
    attempt: () => useTestApiServer({ share: true } as never),
    unknown: [['useTestApiServer options.share', 'shared']],
  },
];

describe('unknown option keys of the test servers', () => {
  for (const { site, attempt, unknown } of SITES) {
    it(`rejects them: ${site}`, async () => {
      const error = await unknownOptionError(attempt);
      expect(error.unknown.map((u) => [u.path, u.suggestion])).to.deep.equal(unknown);
      for (const u of error.unknown)
        expect(error.message)
          .to.contain(`${u.path}`)
          .and.to.contain(`accepts: ${u.accepted.join(', ')}`);
    });
  }

  it('names the accepted keys of startTestApiServer, the same on both servers', async () => {
    const error = await unknownOptionError(() => startTestApiServer({ tls: true } as never));
    expect(error.unknown[0]!.accepted).to.deep.equal(['bookmarkIntervalMs', 'historyWindow', 'shardedListAndWatch']);
  });

  it('starts with every accepted key', async function () {
    this.timeout(120_000);
    const server: TestApiServer = await startTestApiServer({ historyWindow: 50, bookmarkIntervalMs: 1_000, shardedListAndWatch: true });
    await server.stop();
  });
});
