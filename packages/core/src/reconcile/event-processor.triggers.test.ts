import { expect } from 'chai';
import { NEVER, Observable } from 'rxjs';
import {
  EventProcessor,
  PriorityWorkQueue,
  ResourceID,
  type EventSource,
  type EventSourceHealth,
  type ProcessingEvent,
  type Trigger,
} from '../index.js';
import { Listeners } from '../internal.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

function trigger(name: string, priority?: number): Trigger {
  return {
    primaryIds: [ResourceID.of(name, 'ns')],
    source: 'direct',
    cause: { type: 'external', detail: 'test' },
    ...(priority !== undefined ? { priority } : {}),
  };
}

/** A source that hands triggers over through `onTrigger` and counts who subscribes to its `triggers$`. */
class DirectSource implements EventSource<never> {
  readonly name = 'direct';
  readonly listeners = new Listeners<Trigger>();
  subscriptions = 0;
  readonly triggers$ = new Observable<Trigger>((subscriber) => {
    this.subscriptions++;
    return this.listeners.add((t) => subscriber.next(t));
  });
  readonly health$: Observable<EventSourceHealth> = NEVER;
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  onTrigger(listener: (trigger: Trigger) => void): () => void {
    return this.listeners.add(listener);
  }
}

describe('EventProcessor trigger hand-over', () => {
  it('connects a source through onTrigger, a direct call, without subscribing to its triggers$', async () => {
    const source = new DirectSource();
    const dispatched: string[] = [];
    const processor = new EventProcessor({ dispatch: async (key) => void dispatched.push(key), sources: [source] });
    expect(source.subscriptions).to.equal(0);
    expect(source.listeners.listening).to.equal(true);
    source.listeners.emit(trigger('a'));
    // Queued synchronously, by the call itself.
    expect(processor.stats().queued).to.equal(1);
    processor.start();
    await tick();
    expect(dispatched).to.deep.equal(['ns/a']);
    await processor.stop();
    expect(source.listeners.listening).to.equal(false);
  });

  it('connects a bare trigger channel (triggers$ and onTrigger, no EventSource) through onTrigger too', async () => {
    const listeners = new Listeners<Trigger>();
    let subscribed = 0;
    const channel = {
      triggers$: new Observable<Trigger>(() => {
        subscribed++;
      }),
      onTrigger: (listener: (trigger: Trigger) => void) => listeners.add(listener),
    };
    const processor = new EventProcessor({ dispatch: async () => {} });
    processor.addSource(channel);
    listeners.emit(trigger('a'));
    expect(subscribed).to.equal(0);
    expect(processor.stats().queued).to.equal(1);
    await processor.stop();
    expect(listeners.listening).to.equal(false);
  });

  it('carries the trigger priority into the injected queue', async () => {
    const source = new DirectSource();
    const added: Array<[string, number | undefined]> = [];
    const processor = new EventProcessor({
      dispatch: async () => {},
      sources: [source],
      queue: (options) => {
        const queue = new PriorityWorkQueue(options);
        const add = queue.add.bind(queue);
        queue.add = (item: string, priority?: number) => {
          added.push([item, priority]);
          add(item, priority);
        };
        return queue;
      },
    });
    source.listeners.emit(trigger('low', -100));
    source.listeners.emit(trigger('high', 10));
    source.listeners.emit(trigger('plain'));
    expect(added).to.deep.equal([
      ['ns/low', -100],
      ['ns/high', 10],
      ['ns/plain', undefined],
    ]);
    await processor.stop();
  });

  it('derives triggers$ and events$ for subscribers only, and completes them on stop', async () => {
    const source = new DirectSource();
    const processor = new EventProcessor({ dispatch: async () => {}, sources: [source] });
    source.listeners.emit(trigger('before'));
    const triggers: string[] = [];
    const events: ProcessingEvent['type'][] = [];
    let completed = 0;
    processor.triggers$.subscribe({ next: (t) => triggers.push(t.primaryIds[0]!.key), complete: () => completed++ });
    processor.events$.subscribe({ next: (e) => events.push(e.type), complete: () => completed++ });
    source.listeners.emit(trigger('after'));
    expect(triggers).to.deep.equal(['ns/after']);
    expect(events).to.deep.equal(['enqueued']);
    await processor.stop();
    expect(completed).to.equal(2);
  });

  it('calls onEvent and onQueuedTrigger listeners directly, in step with events$ and triggers$, until removed', async () => {
    const source = new DirectSource();
    const processor = new EventProcessor({ dispatch: async () => {}, sources: [source] });
    const direct: string[] = [];
    const derived: string[] = [];
    const stopEvents = processor.onEvent((e) => direct.push(`event ${e.type}`));
    const stopTriggers = processor.onQueuedTrigger((t) => direct.push(`trigger ${t.primaryIds[0]!.key}`));
    processor.events$.subscribe((e) => derived.push(`event ${e.type}`));
    source.listeners.emit(trigger('a'));
    // Synchronous: the trigger's call returns after the listeners ran.
    expect(direct).to.deep.equal(['event enqueued', 'trigger ns/a']);
    processor.start();
    await tick();
    expect(direct.filter((d) => d.startsWith('event'))).to.deep.equal(derived);
    expect(derived).to.include.members(['event started', 'event finished']);
    stopEvents();
    stopTriggers();
    const seen = direct.length;
    source.listeners.emit(trigger('b'));
    await tick();
    expect(direct).to.have.length(seen);
    expect(derived.length).to.be.greaterThan(seen - 1);
    await processor.stop();
  });
});
