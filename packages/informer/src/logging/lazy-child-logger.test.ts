import { expect } from 'chai';
import { pino } from 'pino';
import type { Logger } from '@kindex/core';
import { LazyChildLogger } from './lazy-child-logger.js';

/** A pino logger at `level` writing into an array, counting the children made from it. */
function recording(level: string): { logger: Logger; lines: Record<string, unknown>[]; children: () => number } {
  const lines: Record<string, unknown>[] = [];
  const base = pino(
    { level, base: null, timestamp: false },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  let children = 0;
  const logger: Logger = {
    trace: base.trace.bind(base),
    debug: base.debug.bind(base),
    info: base.info.bind(base),
    warn: base.warn.bind(base),
    error: base.error.bind(base),
    fatal: base.fatal.bind(base),
    child: (bindings) => (children++, base.child(bindings)),
    isLevelEnabled: (l) => base.isLevelEnabled(l),
  };
  return { logger, lines, children: () => children };
}

describe('LazyChildLogger', () => {
  it('makes the child on the first line at an enabled level, once, and writes through it with the bindings', () => {
    const { logger, lines, children } = recording('info');
    const log = new LazyChildLogger(logger, { name: 'web', reconcileID: 'r1' });
    log.debug({ skipped: true }, 'below the level');
    expect(children(), 'no child for a line nobody writes').to.equal(0);
    expect(log.isLevelEnabled('debug')).to.equal(false);
    log.info({ step: 1 }, 'first');
    log.warn('second');
    expect(children()).to.equal(1);
    expect(lines).to.deep.equal([
      { level: 30, name: 'web', reconcileID: 'r1', step: 1, msg: 'first' },
      { level: 40, name: 'web', reconcileID: 'r1', msg: 'second' },
    ]);
  });

  it('calls bindings given as a function only when the child is made, and once', () => {
    const { logger, lines } = recording('info');
    let calls = 0;
    const log = new LazyChildLogger(logger, () => (calls++, { reconcileID: 'r3' }));
    log.debug('below the level');
    expect(calls, 'nothing written, so no bindings built').to.equal(0);
    log.info('first');
    log.error('second');
    expect(calls).to.equal(1);
    expect(lines).to.deep.equal([
      { level: 30, reconcileID: 'r3', msg: 'first' },
      { level: 50, reconcileID: 'r3', msg: 'second' },
    ]);
  });

  it('hands out grandchildren carrying both bindings', () => {
    const { logger, lines } = recording('debug');
    new LazyChildLogger(logger, { reconcileID: 'r2' }).child({ dependent: 'config' }).debug('made');
    expect(lines).to.deep.equal([{ level: 20, reconcileID: 'r2', dependent: 'config', msg: 'made' }]);
  });

  it('treats a parent without isLevelEnabled as writing every level', () => {
    const written: string[] = [];
    const parent: Logger = {
      trace: () => {},
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: () => {},
      fatal: () => {},
      child: () => ({ ...parent, trace: (m: object | string) => void written.push(String(m)) }),
    };
    new LazyChildLogger(parent, {}).trace('kept');
    expect(written).to.deep.equal(['kept']);
  });
});
