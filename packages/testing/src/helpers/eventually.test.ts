import { expect } from 'chai';
import { eventually } from '../index.js';

describe('eventually', () => {
  it('returns the result of the first attempt that passes', async () => {
    let attempts = 0;
    const result = await eventually(
      () => {
        attempts++;
        if (attempts < 3) throw new Error('not yet');
        return 'done';
      },
      { intervalMs: 1 },
    );
    expect(result).to.equal('done');
    expect(attempts).to.equal(3);
  });

  it('rethrows the last failure with the attempt count and description when time runs out', async () => {
    let attempts = 0;
    const failure = await eventually(
      () => {
        attempts++;
        expect(attempts).to.equal(-1);
      },
      { timeoutMs: 100, intervalMs: 10, description: 'the counter' },
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).name).to.equal('AssertionError');
    expect((failure as Error).message).to.match(/^the counter did not pass after \d+ attempts in \d+ ms: expected \d+ to equal -1/);
    expect(attempts).to.be.greaterThan(1);
  });

  it('gives up on an attempt that never settles once the deadline passes', async () => {
    const failure = await eventually(() => new Promise<never>(() => {}), { timeoutMs: 50 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((failure as Error).message).to.contain('attempt still pending');
  });

  it('wraps a thrown non-Error value in an Error naming it', async () => {
    const failure = await eventually(
      () => {
        throw 'plain string';
      },
      { timeoutMs: 20, intervalMs: 5 },
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((failure as Error).message).to.contain('plain string');
  });
});
