import { expect } from 'chai';
import { Subject } from 'rxjs';
import { EventProcessor, ResourceID, type Trigger } from '../index.js';

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

function trigger(names: string[]): Trigger {
  return { primaryIds: names.map((n) => ResourceID.of(n, 'ns')), source: 'test', cause: { type: 'external', detail: 'test' } };
}

// Takes chain through microtasks, where Node reads no socket and fires no timer: these pin that
// the processor lets the event loop turn while it has work that never waits.
describe('EventProcessor: the event loop keeps turning', () => {
  it('lets the event loop turn while a reconcile asks to run again at once, and goes on reconciling', async () => {
    let dispatches = 0;
    const processor = new EventProcessor({
      dispatch: () => {
        dispatches++;
        return { rescheduleAfterMs: 0 };
      },
      concurrency: 4,
    });
    processor.enqueue('ns/spinning');
    processor.start();
    await nextTurn(); // never reached if the reschedules chain through microtasks alone
    const atFirstTurn = dispatches;
    expect(atFirstTurn).to.be.within(1, 1024);
    await nextTurn();
    await nextTurn();
    expect(dispatches).to.be.greaterThan(atFirstTurn);
    await processor.stop();
  });

  it('lets the event loop turn during a wave of reconciles that return at once, and reconciles every primary', async () => {
    const source = new Subject<Trigger>();
    const reconciled = new Set<string>();
    const processor = new EventProcessor({ dispatch: (key) => void reconciled.add(key), sources: [source], concurrency: 10 });
    source.next(trigger(Array.from({ length: 5000 }, (_, i) => `p${i}`)));
    processor.start();
    await nextTurn();
    expect(reconciled.size).to.be.within(1, 1024 + 10);
    for (let turns = 0; reconciled.size < 5000 && turns < 100; turns++) await nextTurn();
    expect(reconciled.size).to.equal(5000);
    await processor.stop();
  });
});
