import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { requireFault, type SkippableContext, type TestApiServer } from '../index.js';
import { skipWithReason } from '../internal.js';

class Skipped extends Error {}

function fakeContext(): SkippableContext & { skipped: boolean; test: { title: string } } {
  return {
    skipped: false,
    test: { title: 'does something' },
    skip() {
      this.skipped = true;
      throw new Skipped();
    },
  };
}

function fakeServer(faults: TestApiServer['faults']): TestApiServer {
  return {
    flavor: 'real',
    url: 'https://127.0.0.1:1',
    kubeConfig: new KubeConfig(),
    kubeconfigYaml: '',
    faults,
    stop: async () => {},
  };
}

describe('requireFault', () => {
  it('returns the fault, bound to the faults object', async () => {
    const faults = {
      restarts: 0,
      async restart(this: { restarts: number }) {
        this.restarts++;
      },
    };
    const restart = requireFault(fakeContext(), fakeServer(faults), 'restart');
    await restart();
    expect(faults.restarts).to.equal(1);
  });

  it('skips the test with a reason naming the flavor and the fault when the server lacks it', () => {
    const context = fakeContext();
    expect(() => requireFault(context, fakeServer({}), 'pauseEvents')).to.throw(Skipped);
    expect(context.skipped).to.equal(true);
    expect(context.test.title).to.equal("does something (skipped: the real API server cannot inject the fault 'pauseEvents')");
  });
});

describe('skipWithReason', () => {
  it('appends the reason to the test title and skips', () => {
    const context = fakeContext();
    expect(() => skipWithReason(context, 'no controllers')).to.throw(Skipped);
    expect(context.test.title).to.equal('does something (skipped: no controllers)');
  });
});
