import { expect } from 'chai';
import { Subject } from 'rxjs';
import {
  EventProcessor,
  FakeClock,
  GenericRetry,
  InvalidConfigurationError,
  ItemExponentialFailureRateLimiter,
  LOW_PRIORITY,
  PriorityWorkQueue,
  ResourceID,
  WorkQueue,
  type DispatchResult,
  type EventProcessorOptions,
  type QueueKind,
  type Trigger,
} from '../index.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

function trigger(priority: number | undefined, ...names: string[]): Trigger {
  return {
    primaryIds: names.map((n) => ResourceID.of(n, 'ns')),
    source: 'test',
    cause: { type: 'external', detail: 'test' },
    ...(priority !== undefined ? { priority } : {}),
  };
}

/**
 * One worker, a dispatcher that records the order and answers with `results[name]` (or throws
 * for names in `failing`), triggers sent while the processor is paused so the queue decides the
 * order once it resumes.
 */
function setup(
  queue: QueueKind | undefined,
  results: Record<string, DispatchResult> = {},
  failing: string[] = [],
  options: Partial<EventProcessorOptions> = {},
) {
  const clock = new FakeClock();
  const source = new Subject<Trigger>();
  const order: string[] = [];
  const processor = new EventProcessor({
    dispatch: async (key) => {
      const name = ResourceID.parse(key).name;
      order.push(name);
      if (failing.includes(name)) throw new Error(`${name} failed`);
      return results[name];
    },
    clock,
    sources: [source],
    concurrency: 1,
    rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 1 }),
    retry: new GenericRetry({ initialIntervalMs: 100, maxAttempts: 1 }),
    maxReconciliationIntervalMs: undefined,
    ...(queue !== undefined ? { queue } : {}),
    ...options,
  });
  return { clock, source, order, processor };
}

describe('EventProcessor queue option', () => {
  it('uses a FIFO WorkQueue by default, which ignores priorities', async () => {
    const { source, order, processor } = setup(undefined);
    expect(processor.queue).to.be.instanceOf(WorkQueue);
    processor.pause();
    source.next(trigger(LOW_PRIORITY, 'a', 'b'));
    source.next(trigger(undefined, 'c'));
    processor.start();
    processor.resume();
    await tick();
    expect(order).to.deep.equal(['a', 'b', 'c']);
    await processor.stop();
  });

  it("with 'priority', reconciles a trigger of higher priority before earlier low-priority ones", async () => {
    const { source, order, processor } = setup('priority');
    expect(processor.queue).to.be.instanceOf(PriorityWorkQueue);
    processor.pause();
    source.next(trigger(LOW_PRIORITY, 'a', 'b', 'c'));
    source.next(trigger(undefined, 'd'));
    source.next(trigger(0, 'b')); // a real change of b raises it
    processor.start();
    processor.resume();
    await tick();
    expect(order).to.deep.equal(['b', 'd', 'a', 'c']);
    await processor.stop();
  });

  it('builds the queue with a function, given the processor clock, rate limiter and name', () => {
    const seen: string[] = [];
    const { processor } = setup(
      (options) => {
        seen.push(options.name ?? '');
        expect(options.clock).to.be.instanceOf(FakeClock);
        expect(options.rateLimiter).to.be.instanceOf(ItemExponentialFailureRateLimiter);
        return new PriorityWorkQueue(options);
      },
      {},
      [],
      { name: 'webapps' },
    );
    expect(seen).to.deep.equal(['webapps']);
    expect(processor.queue).to.be.instanceOf(PriorityWorkQueue);
  });

  it('refuses an unknown queue kind, naming the option and the choices', () => {
    expect(() => setup('lifo' as QueueKind)).to.throw(
      InvalidConfigurationError,
      "queue: must be 'fifo', 'priority' or a function building a ReconcileQueue, got 'lifo'",
    );
  });

  it('gives a requested reschedule the priority the reconcile asked for', async () => {
    const { clock, source, order, processor } = setup('priority', { a: { rescheduleAfterMs: 10, reschedulePriority: 5 } });
    processor.start();
    source.next(trigger(LOW_PRIORITY, 'a'));
    await tick();
    expect(order).to.deep.equal(['a']);
    processor.pause();
    source.next(trigger(undefined, 'b'));
    await clock.advance(10);
    expect((processor.queue as PriorityWorkQueue).priorityOf(ResourceID.of('a', 'ns').key)).to.equal(5);
    processor.resume();
    await tick();
    expect(order).to.deep.equal(['a', 'a', 'b']);
    await processor.stop();
  });

  it('keeps the priority an attempt was handed out at for its reschedule and its retry', async () => {
    const { clock, source, order, processor } = setup('priority', { a: { rescheduleAfterMs: 10 } }, ['b']);
    processor.start();
    source.next(trigger(LOW_PRIORITY, 'a', 'b'));
    await tick();
    expect(order).to.deep.equal(['a', 'b']);
    processor.pause();
    await clock.advance(100);
    const queue = processor.queue as PriorityWorkQueue;
    expect(queue.priorityOf(ResourceID.of('a', 'ns').key)).to.equal(LOW_PRIORITY);
    expect(queue.priorityOf(ResourceID.of('b', 'ns').key)).to.equal(LOW_PRIORITY);
    await processor.stop();
  });

  it('puts the max-interval reschedule at low priority: it is a resync, not a change', async () => {
    const { clock, source, processor } = setup('priority', {}, [], { maxReconciliationIntervalMs: 50 });
    processor.start();
    source.next(trigger(3, 'a'));
    await tick();
    processor.pause();
    // Queued by the sweep while paused (a follower's queue stays current), within its bound.
    await clock.advance(50 + Math.ceil((11 * 50) / 64));
    expect((processor.queue as PriorityWorkQueue).priorityOf(ResourceID.of('a', 'ns').key)).to.equal(LOW_PRIORITY);
    await processor.stop();
  });

  it('gives a key back to the queue at its priority when paused under a waiting worker', async () => {
    const { source, order, processor } = setup('priority');
    processor.start();
    await tick();
    // The worker waits in get(): the next add goes straight to it, then the pause makes it give
    // the key back, which must not lose its low priority.
    processor.pause();
    source.next(trigger(LOW_PRIORITY, 'a'));
    await tick();
    source.next(trigger(undefined, 'b'));
    processor.resume();
    await tick();
    expect(order).to.deep.equal(['b', 'a']);
    await processor.stop();
  });
});
