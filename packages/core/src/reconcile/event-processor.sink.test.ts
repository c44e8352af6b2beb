import { expect } from 'chai';
import { NEVER, Observable } from 'rxjs';
import {
  EventProcessor,
  ResourceID,
  type EventSource,
  type EventSourceHealth,
  type ProcessingEvent,
  type Trigger,
  type TriggerSink,
} from '../index.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

function trigger(name: string): Trigger {
  return { primaryIds: [ResourceID.of(name, 'ns')], source: 'sink', cause: { type: 'external', detail: 'test' } };
}

/** A source that keeps one sink (`connect`) and also offers `onTrigger` and `triggers$`, counting who uses which. */
class SinkSource implements EventSource<never> {
  readonly name = 'sink';
  sink: TriggerSink | undefined;
  listeners = 0;
  subscriptions = 0;
  readonly triggers$ = new Observable<Trigger>(() => {
    this.subscriptions++;
  });
  readonly health$: Observable<EventSourceHealth> = NEVER;
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  connect(sink: TriggerSink): () => void {
    this.sink = sink;
    return () => {
      if (this.sink === sink) this.sink = undefined;
    };
  }
  onTrigger(): () => void {
    this.listeners++;
    return () => {};
  }
}

describe('EventProcessor as a TriggerSink', () => {
  it('connects a source with connect as its sink, in preference to onTrigger and triggers$', async () => {
    const source = new SinkSource();
    const dispatched: string[] = [];
    const processor = new EventProcessor({ dispatch: async (key) => void dispatched.push(key), sources: [source] });
    expect(source.sink).to.equal(processor);
    expect([source.listeners, source.subscriptions]).to.deep.equal([0, 0]);
    source.sink!.accept(trigger('a'));
    // Queued synchronously, by the call itself.
    expect(processor.stats().queued).to.equal(1);
    processor.start();
    await tick();
    expect(dispatched).to.deep.equal(['ns/a']);
    await processor.stop();
    expect(source.sink).to.equal(undefined);
  });

  it('accepts a trigger by a direct call: queued, then seen by onQueuedTrigger; a malformed one is reported and skipped', async () => {
    const processor = new EventProcessor({ dispatch: async () => {} });
    const queued: Trigger[] = [];
    const events: ProcessingEvent[] = [];
    processor.onQueuedTrigger((t) => queued.push(t));
    processor.onEvent((e) => events.push(e));
    const good = trigger('b');
    processor.accept(good);
    processor.accept({ primaryIds: [undefined as unknown as ResourceID], source: 'sink', cause: { type: 'external', detail: 'bad' } });
    expect(processor.stats().queued).to.equal(1);
    expect(queued[0]).to.equal(good);
    expect(events.filter((e) => e.type === 'source-failed')).to.have.length(1);
    await processor.stop();
  });
});
