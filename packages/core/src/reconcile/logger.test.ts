import { expect } from 'chai';
import { type KubernetesObject, type Logger, type PrimaryCacheReader } from '../index.js';
import { DefaultContext, noopLogger } from '../internal.js';

const primary: KubernetesObject = { metadata: { name: 'job', namespace: 'ns' } };
const primaryCache = { get: () => undefined } as unknown as PrimaryCacheReader<KubernetesObject>;

describe('Logger', () => {
  it('noopLogger writes nothing and its children are itself', () => {
    expect(() => noopLogger.info({ a: 1 }, 'message')).to.not.throw();
    expect(noopLogger.child({ a: 1 })).to.equal(noopLogger);
    expect(Object.isFrozen(noopLogger)).to.equal(true);
  });

  it('reaches the reconciler through Context.getLogger, or is the no-op logger by default', () => {
    const lines: unknown[][] = [];
    const record = (...args: unknown[]): void => void lines.push(args);
    const logger: Logger = { trace: record, debug: record, info: record, warn: record, error: record, fatal: record, child: () => logger };
    const context = new DefaultContext({ primary, eventSources: [], primaryCache, client: undefined, logger });
    context.getLogger().info({ step: 1 }, 'resolving');
    expect(lines).to.deep.equal([[{ step: 1 }, 'resolving']]);
    expect(new DefaultContext({ primary, eventSources: [], primaryCache, client: undefined }).getLogger()).to.equal(noopLogger);
  });
});
