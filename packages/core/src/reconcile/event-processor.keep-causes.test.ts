import { expect } from 'chai';
import { Subject } from 'rxjs';
import { EventProcessor, FakeClock, ResourceID, type DispatchRequest, type DispatchResult, type Trigger } from '../index.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

function resourceTrigger(primary: string, source: string, objectKey: string): Trigger {
  return { primaryIds: [ResourceID.of(primary, 'ns')], source, cause: { type: 'resource', event: 'update', objectKey } };
}

function setup(keepCauses: boolean) {
  const calls: { key: string; request: DispatchRequest; settle: (r?: DispatchResult) => void }[] = [];
  const source = new Subject<Trigger>();
  const processor = new EventProcessor({
    dispatch: (key, request) => new Promise<DispatchResult | void>((resolve) => calls.push({ key, request, settle: resolve })),
    clock: new FakeClock(),
    sources: [source],
    maxReconciliationIntervalMs: undefined,
    reconcileTimeoutMs: undefined,
    keepCauses,
  });
  return { calls, source, processor };
}

describe('EventProcessor keepCauses: false', () => {
  it('hands each dispatch the count of the triggers that coalesced into it, none listed', async () => {
    const t = setup(false);
    t.source.next(resourceTrigger('a', 'clusters', 'ns/alpha'));
    t.source.next(resourceTrigger('a', 'clusters', 'ns/beta'));
    t.processor.enqueue('ns/a');
    expect(t.processor.pendingCauses('ns/a')).to.deep.equal({ causes: [], triggers: 3, omitted: 3 });
    t.processor.start();
    await tick();
    expect(t.calls[0]!.request.causes).to.deep.equal({ causes: [], triggers: 3, omitted: 3 });
    expect(Object.isFrozen(t.calls[0]!.request.causes)).to.equal(true);
    expect(t.processor.pendingCauses('ns/a')).to.equal(undefined);

    t.source.next(resourceTrigger('a', 'clusters', 'ns/alpha'));
    t.calls[0]!.settle();
    await tick();
    expect(t.calls[1]!.request.causes).to.deep.equal({ causes: [], triggers: 1, omitted: 1 });
    t.calls[1]!.settle();
    await tick();
    // Nothing is held for a primary with nothing pending: the count went with the dispatch.
    expect(t.processor.trackedPrimaries()).to.equal(0);
    await t.processor.stop();
  });

  it('forgets the count of a deleted primary', async () => {
    const t = setup(false);
    t.source.next(resourceTrigger('a', 'clusters', 'ns/alpha'));
    t.processor.primaryDeleted('ns/a');
    expect(t.processor.pendingCauses('ns/a')).to.equal(undefined);
    expect(t.processor.trackedPrimaries()).to.equal(0);
    await t.processor.stop();
  });

  it('lists the causes by default', async () => {
    const t = setup(true);
    t.source.next(resourceTrigger('a', 'clusters', 'ns/alpha'));
    t.processor.start();
    await tick();
    expect(t.calls[0]!.request.causes.causes.map((c) => c.objectKey)).to.deep.equal(['ns/alpha']);
    t.calls[0]!.settle();
    await t.processor.stop();
  });
});
