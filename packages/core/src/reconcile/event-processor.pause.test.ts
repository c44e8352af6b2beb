import { expect } from 'chai';
import { Subject } from 'rxjs';
import { EventProcessor, FakeClock, ResourceID, type DispatchRequest, type Trigger } from '../index.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

function trigger(...names: string[]): Trigger {
  return { primaryIds: names.map((n) => ResourceID.of(n, 'ns')), source: 'test', cause: { type: 'external', detail: 'test' } };
}

function setup() {
  const clock = new FakeClock();
  const source = new Subject<Trigger>();
  const calls: { key: string; request: DispatchRequest; resolve: () => void }[] = [];
  const processor = new EventProcessor({
    dispatch: (key, request) => new Promise<void>((resolve) => calls.push({ key, request, resolve })),
    clock,
    sources: [source],
    concurrency: 2,
    maxReconciliationIntervalMs: undefined,
  });
  return { processor, source, calls };
}

describe('EventProcessor.pause', () => {
  it('queues and coalesces triggers while paused from the start, and dispatches them once on resume', async () => {
    const { processor, source, calls } = setup();
    processor.pause();
    processor.start();
    source.next(trigger('a', 'b', 'c'));
    source.next(trigger('a'));
    await tick();
    expect(calls).to.have.length(0);
    expect(processor.paused).to.equal(true);
    processor.resume();
    await tick();
    expect(calls.map((c) => c.key).sort()).to.deep.equal(['ns/a', 'ns/b']);
    for (const c of calls.splice(0)) c.resolve();
    await tick();
    await tick();
    expect(calls.map((c) => c.key)).to.deep.equal(['ns/c']);
    calls[0]!.resolve();
    await processor.stop();
  });

  it('stops dispatching at once when paused, aborts in-flight attempts with the reason, and lets them settle', async () => {
    const { processor, source, calls } = setup();
    processor.start();
    source.next(trigger('a'));
    await tick();
    expect(calls).to.have.length(1);
    const reason = new Error('lost the lease');
    processor.pause(reason);
    expect(calls[0]!.request.signal.aborted).to.equal(true);
    expect(calls[0]!.request.signal.reason).to.equal(reason);
    source.next(trigger('b', 'a'));
    await tick();
    calls[0]!.resolve();
    await tick();
    await tick();
    expect(calls, 'nothing new while paused').to.have.length(1);
    expect(processor.stats().processing, 'b waits in the queue, not in a worker').to.equal(0);
    processor.resume();
    await tick();
    await tick();
    expect(
      calls
        .slice(1)
        .map((c) => c.key)
        .sort(),
    ).to.deep.equal(['ns/a', 'ns/b']);
    for (const c of calls.slice(1)) c.resolve();
    await processor.stop();
  });

  it('stops while paused without dispatching what was held or queued', async () => {
    const { processor, source, calls } = setup();
    processor.pause();
    processor.start();
    source.next(trigger('a', 'b', 'c'));
    await tick();
    await processor.stop();
    expect(calls).to.have.length(0);
  });
});
