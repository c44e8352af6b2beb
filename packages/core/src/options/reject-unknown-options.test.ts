import { expect } from 'chai';
import { UnknownOptionError } from '../index.js';
import { rejectUnknownOptions, type OptionKeys } from '../internal.js';

const OPERATOR_LIKE: OptionKeys = {
  kubeConfig: true,
  leaderElection: { leaseName: true, leaseNamespace: true },
  server: { port: true, host: true },
  logger: true,
  cacheSyncTimeoutMs: true,
};

function caught(attempt: () => void): UnknownOptionError {
  try {
    attempt();
  } catch (error) {
    expect(error).to.be.instanceOf(UnknownOptionError);
    return error as UnknownOptionError;
  }
  expect.fail('expected an UnknownOptionError');
}

describe('rejectUnknownOptions', () => {
  it('accepts known keys at every level, and values that are not options objects', () => {
    rejectUnknownOptions('Operator options', { kubeConfig: {}, server: { port: 1 }, logger: 'info' }, OPERATOR_LIKE);
    rejectUnknownOptions('Operator options', undefined, OPERATOR_LIKE);
    rejectUnknownOptions('Operator options', { server: 'not an object' }, OPERATOR_LIKE);
  });

  it('names every unknown key, nested ones with their path, the accepted keys and the closest match', () => {
    const error = caught(() =>
      rejectUnknownOptions(
        'Operator options',
        { kubeConfig: {}, leaderElecton: {}, loger: 'info', server: { hots: 'x', port: 1 }, cacheSyncTimeout: 5 },
        OPERATOR_LIKE,
      ),
    );
    expect(error.path).to.equal('Operator options');
    expect(error.paths).to.deep.equal([
      'Operator options.leaderElecton',
      'Operator options.loger',
      'Operator options.server.hots',
      'Operator options.cacheSyncTimeout',
    ]);
    expect(error.unknown.map((u) => [u.key, u.suggestion])).to.deep.equal([
      ['leaderElecton', 'leaderElection'],
      ['loger', 'logger'],
      ['hots', 'host'],
      ['cacheSyncTimeout', 'cacheSyncTimeoutMs'],
    ]);
    expect(error.unknown[2]!.accepted).to.deep.equal(['host', 'port']);
    expect(error.message).to.equal(
      '4 unknown options: Operator options.leaderElecton (did you mean "leaderElection"?), Operator options.loger (did you mean "logger"?), ' +
        'Operator options.server.hots (did you mean "host"?), Operator options.cacheSyncTimeout (did you mean "cacheSyncTimeoutMs"?). ' +
        'Operator options accepts: cacheSyncTimeoutMs, kubeConfig, leaderElection, logger, server; ' +
        'Operator options.server accepts: host, port. Rename or remove them.',
    );
  });

  it('words a single unknown key in the singular, and suggests nothing when no key is close', () => {
    const error = caught(() => rejectUnknownOptions('server options', { zzz: 1 }, { port: true, host: true }));
    expect(error.unknown[0]!.suggestion).to.equal(undefined);
    expect(error.message).to.equal('Unknown option server options.zzz. server options accepts: host, port. Rename or remove it.');
  });

  it('suggests across case, swapped letters and a left-off suffix', () => {
    const keys: OptionKeys = { pageSize: true, watchTimeoutSeconds: true, group: true, namespaces: true };
    const suggestions = caught(() =>
      rejectUnknownOptions('o', { pagesize: 1, watchTimeout: 1, grop: 1, namespace: 1, gorup: 1 }, keys),
    ).unknown.map((u) => u.suggestion);
    expect(suggestions).to.deep.equal(['pageSize', 'watchTimeoutSeconds', 'group', 'namespaces', 'group']);
  });

  it('leaves class instances under a nested key alone (a KubeConfig or a logger is not an options object)', () => {
    class Logger {
      level = 'info';
    }
    rejectUnknownOptions('o', { server: new Logger() }, { server: { port: true } });
    expect(() =>
      rejectUnknownOptions('o', { server: Object.assign(Object.create(null) as object, { prt: 1 }) }, { server: { port: true } }),
    ).to.throw(UnknownOptionError, /o\.server\.prt \(did you mean "port"\?\)/);
  });

  it('does not take inherited names such as toString or constructor for accepted keys', () => {
    const error = caught(() => rejectUnknownOptions('o', { toString: 1, constructor: 2 }, { port: true }));
    expect(error.paths).to.deep.equal(['o.toString', 'o.constructor']);
  });
});
