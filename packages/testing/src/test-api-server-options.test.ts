import { expect } from 'chai';
import { createTestCrd, eventually, startEmbeddedApiServer, startTestApiServer, useTestApiServer, type TestApiServer } from './index.js';
import { catchInvalidOption, catchUnknownOptions, realApiServerBinaries, startRealApiServer } from './internal.js';

// The test servers' options reject unknown keys before anything starts, on
// whichever server KINDEX_APISERVER selects.

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
  {
    site: 'realApiServerBinaries',
    attempt: () => realApiServerBinaries({ cachedir: '/tmp' } as never),
    unknown: [['realApiServerBinaries options.cachedir', 'cacheDir']],
  },
  {
    site: 'eventually',
    attempt: () => eventually(() => true, { timeout: 10 } as never),
    unknown: [['eventually options.timeout', 'timeoutMs']],
  },
  {
    site: 'createTestCrd (before it talks to a server)',
    attempt: () => createTestCrd({} as never, {} as never, { statusSubResource: true } as never),
    unknown: [['createTestCrd options.statusSubResource', 'statusSubresource']],
  },
];

describe('unknown option keys of the test servers', () => {
  for (const { site, attempt, unknown } of SITES) {
    it(`rejects them: ${site}`, async () => {
      await catchUnknownOptions(attempt, unknown);
    });
  }

  it('names the accepted keys of startTestApiServer, the same on both servers', async () => {
    const error = await catchUnknownOptions(() => startTestApiServer({ tls: true } as never));
    expect(error.unknown[0]!.accepted).to.deep.equal([
      'authorization',
      'bookmarkIntervalMs',
      'cborServingAndStorage',
      'historyWindow',
      'shardedListAndWatch',
    ]);
  });

  it('starts with every accepted key', async function () {
    this.timeout(120_000);
    const server: TestApiServer = await startTestApiServer({
      historyWindow: 50,
      bookmarkIntervalMs: 1_000,
      shardedListAndWatch: true,
      cborServingAndStorage: true,
      authorization: 'RBAC',
    });
    await server.stop();
  });
});

describe('option values of the test servers', () => {
  it('refuses a value of the wrong type before any server starts, naming the key and the fix', async () => {
    const error = await catchInvalidOption(() => startTestApiServer({ authorization: 'Webhook' } as never));
    expect(error.message).to.equal(
      `startTestApiServer options.authorization = "Webhook": not one of the values accepted. Fix: set authorization to 'RBAC' or 'AlwaysAllow', or leave it out for the default`,
    );
    expect((await catchInvalidOption(() => startTestApiServer({ historyWindow: 0 }))).key).to.equal('historyWindow');
    expect((await catchInvalidOption(() => startRealApiServer({ extraApiServerArgs: '--v=4' } as never))).key).to.equal(
      'extraApiServerArgs',
    );
    expect((await catchInvalidOption(() => useTestApiServer({ shared: 'yes' } as never))).key).to.equal('shared');
  });

  it('refuses helper options of the wrong type', async () => {
    expect((await catchInvalidOption(() => eventually(() => true, { timeoutMs: '5s' } as never))).fix).to.equal(
      'set timeoutMs to a number of milliseconds, 0 or more, or leave it out for the default',
    );
    expect((await catchInvalidOption(() => createTestCrd({} as never, {} as never, { scope: 'Namespace' } as never))).key).to.equal(
      'scope',
    );
    expect((await catchInvalidOption(() => realApiServerBinaries({ cacheDir: '' }))).key).to.equal('cacheDir');
  });
});

describe('option values of the embedded server', () => {
  it('refuses a port, token or maxBodyBytes it cannot use before it binds anything', async () => {
    expect((await catchInvalidOption(() => startEmbeddedApiServer({ port: 70_000 }))).message).to.equal(
      'startEmbeddedApiServer options.port = 70000: must be <= 65535. Fix: set port to a TCP port, 0 for a free one, or leave it out for the default',
    );
    expect((await catchInvalidOption(() => startEmbeddedApiServer({ token: '' }))).key).to.equal('token');
    expect((await catchInvalidOption(() => startEmbeddedApiServer({ maxBodyBytes: 0 }))).key).to.equal('maxBodyBytes');
  });
});
