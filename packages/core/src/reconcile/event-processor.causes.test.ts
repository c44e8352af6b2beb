import { expect } from 'chai';
import { Subject } from 'rxjs';
import {
  EventProcessor,
  FakeClock,
  GenericRetry,
  ItemExponentialFailureRateLimiter,
  ResourceID,
  type DispatchRequest,
  type DispatchResult,
  type EventProcessorOptions,
  type ProcessingEvent,
  type Trigger,
} from '../index.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

function resourceTrigger(primary: string, source: string, objectKey: string, event: 'create' | 'update' | 'delete' = 'update'): Trigger {
  return { primaryIds: [ResourceID.of(primary, 'ns')], source, cause: { type: 'resource', event, objectKey } };
}

function setup(options: Partial<EventProcessorOptions> = {}) {
  const clock = new FakeClock();
  const calls: { key: string; request: DispatchRequest; settle: (r?: DispatchResult | Error) => void }[] = [];
  const source = new Subject<Trigger>();
  const processor = new EventProcessor({
    dispatch: (key, request) =>
      new Promise<DispatchResult | void>((resolve, reject) => {
        calls.push({ key, request, settle: (r) => (r instanceof Error ? reject(r) : resolve(r)) });
      }),
    clock,
    sources: [source],
    rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 1 }),
    maxReconciliationIntervalMs: undefined,
    reconcileTimeoutMs: undefined,
    ...options,
  });
  const events: ProcessingEvent[] = [];
  processor.events$.subscribe((e) => events.push(e));
  return { clock, calls, source, processor, events };
}

describe('EventProcessor reconcile causes', () => {
  it('hands each dispatch the triggers that coalesced into it, grouped and counted', async () => {
    const t = setup();
    t.source.next(resourceTrigger('a', 'clusters', 'ns/alpha'));
    t.source.next(resourceTrigger('a', 'clusters', 'ns/alpha'));
    t.source.next(resourceTrigger('a', 'primary', 'ns/a', 'create'));
    t.processor.start();
    await tick();
    const { causes } = t.calls[0]!.request;
    expect(causes.triggers).to.equal(3);
    expect(causes.omitted).to.equal(0);
    expect(causes.causes.map(({ lastAt: _, ...c }) => c)).to.deep.equal([
      { type: 'resource', source: 'clusters', event: 'update', objectKey: 'ns/alpha', count: 2 },
      { type: 'resource', source: 'primary', event: 'create', objectKey: 'ns/a', count: 1 },
    ]);
    const started = t.events.find((e) => e.type === 'started');
    expect(started?.type === 'started' && started.causes).to.equal(causes);
    t.calls[0]!.settle();
    await t.processor.stop();
  });

  it('gives the follow-up reconcile only the triggers that arrived during the previous one', async () => {
    const t = setup();
    t.processor.start();
    t.source.next(resourceTrigger('a', 'primary', 'ns/a', 'create'));
    await tick();
    t.source.next(resourceTrigger('a', 'clusters', 'ns/beta'));
    expect(t.processor.pendingCauses('ns/a')?.causes.map((c) => c.objectKey)).to.deep.equal(['ns/beta']);
    t.calls[0]!.settle();
    await tick();
    expect(t.calls).to.have.length(2);
    expect(t.calls[1]!.request.causes.causes.map((c) => `${c.source}:${c.objectKey}`)).to.deep.equal(['clusters:ns/beta']);
    expect(t.processor.pendingCauses('ns/a')).to.equal(undefined);
    t.calls[1]!.settle();
    await t.processor.stop();
  });

  it('keeps at most maxCausesPerReconcile distinct causes and counts the rest as omitted', async () => {
    const t = setup({ maxCausesPerReconcile: 2 });
    for (const key of ['ns/x1', 'ns/x2', 'ns/x3', 'ns/x4', 'ns/x1']) t.source.next(resourceTrigger('a', 'things', key));
    t.processor.start();
    await tick();
    const { causes } = t.calls[0]!.request;
    expect(causes.causes.map((c) => [c.objectKey, c.count])).to.deep.equal([
      ['ns/x1', 2],
      ['ns/x2', 1],
    ]);
    expect(causes.triggers).to.equal(5);
    expect(causes.omitted).to.equal(2);
    t.calls[0]!.settle();
    await t.processor.stop();
  });

  it('names a retry that came due, and a direct enqueue', async () => {
    const t = setup({ retry: new GenericRetry({ maxAttempts: 2, initialIntervalMs: 100 }) });
    t.processor.start();
    t.processor.enqueue('ns/a');
    await tick();
    expect(t.calls[0]!.request.causes.causes.map((c) => c.type)).to.deep.equal(['enqueue']);
    t.calls[0]!.settle(new Error('boom'));
    await tick();
    await t.clock.advance(100);
    expect(t.calls).to.have.length(2);
    expect(t.calls[1]!.request.causes.causes.map((c) => c.type)).to.deep.equal(['retry']);
    t.calls[1]!.settle();
    await t.processor.stop();
  });

  it('names a reschedule only once its delay has fired', async () => {
    const t = setup();
    t.processor.start();
    t.source.next(resourceTrigger('a', 'primary', 'ns/a', 'create'));
    await tick();
    t.calls[0]!.settle({ rescheduleAfterMs: 1000 });
    await tick();
    // A trigger runs the primary before the reschedule is due: the reschedule is not a cause.
    t.source.next(resourceTrigger('a', 'clusters', 'ns/alpha'));
    await tick();
    expect(t.calls[1]!.request.causes.causes.map((c) => c.type)).to.deep.equal(['resource']);
    t.calls[1]!.settle({ rescheduleAfterMs: 1000 });
    await tick();
    await t.clock.advance(1000);
    expect(t.calls[2]!.request.causes.causes.map((c) => c.type)).to.deep.equal(['reschedule']);
    t.calls[2]!.settle();
    await t.processor.stop();
  });

  it('forgets the causes of a deleted primary', async () => {
    const t = setup();
    t.source.next(resourceTrigger('a', 'clusters', 'ns/alpha'));
    t.source.next({ primaryIds: [ResourceID.of('a', 'ns')], source: 'primary', cause: { type: 'primary-deleted' } });
    expect(t.processor.pendingCauses('ns/a')).to.equal(undefined);
    t.source.next(resourceTrigger('a', 'primary', 'ns/a', 'create'));
    t.processor.start();
    await tick();
    expect(t.calls[0]!.request.causes.causes.map((c) => c.source)).to.deep.equal(['primary']);
    t.calls[0]!.settle();
    await t.processor.stop();
  });

  it('rejects a bound below one', () => {
    expect(() => setup({ maxCausesPerReconcile: 0 })).to.throw(RangeError, /maxCausesPerReconcile/);
  });
});
