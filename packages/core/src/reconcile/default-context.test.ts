import { expect } from 'chai';
import { of } from 'rxjs';
import {
  EventSourceClassMismatchError,
  MultipleEventSourcesForTypeError,
  MultipleSecondaryResourcesError,
  NoEventSourceForTypeError,
  ResourceID,
  secondaryType,
  UnknownOptionError,
  type EventSource,
  type EventSourceHealth,
  type KubernetesObject,
  type PrimaryCacheReader,
  type SecondaryType,
  type Trigger,
} from '../index.js';
import { DefaultContext, eventSourceHandle, type DefaultContextOptions } from '../internal.js';

interface Pod extends KubernetesObject {
  spec?: { tag?: string };
}
const PodType = secondaryType<Pod>('v1/Pod');
const ConfigType = secondaryType<KubernetesObject>('v1/ConfigMap');
const primary: KubernetesObject = { metadata: { name: 'job', namespace: 'ns' } };

function pod(name: string, rv: string, uid?: string, tag?: string): Pod {
  return { metadata: { name, namespace: 'ns', resourceVersion: rv, ...(uid ? { uid } : {}) }, spec: { tag } };
}

/** A map-backed source: `data` can change after a snapshot is taken. */
function mapSource<R>(name: string, type: SecondaryType<R> | undefined, initial: R[]) {
  let data = initial;
  const source: EventSource<R> & { set(d: R[]): void } = {
    name,
    resourceType: type,
    triggers$: of<Trigger>(),
    health$: of<EventSourceHealth>({ source: name, status: 'healthy' }),
    start: async () => {},
    stop: async () => {},
    getSecondaryResources: () => data,
    snapshot: () => {
      const frozen = data;
      return { getSecondaryResources: () => frozen };
    },
    set: (d: R[]) => (data = d),
  };
  return source;
}

const emptyCache: PrimaryCacheReader = { get: () => undefined, list: () => [], byIndex: () => [] };

function context(sources: EventSource<unknown>[]) {
  return new DefaultContext({ primary, eventSources: sources, primaryCache: emptyCache, client: 'client' });
}

describe('DefaultContext', () => {
  it('rejects unknown option keys of getSecondaryResources and getSecondaryResource, naming the closest key', () => {
    const ctx = context([mapSource('pods-a', PodType, [pod('a', '1')])]);
    expect(() => ctx.getSecondaryResources(PodType, { eventSource: 'pods-a', dedupe: false } as never)).to.throw(
      UnknownOptionError,
      /^2 unknown options: getSecondaryResources options\.eventSource \(did you mean "eventSourceName"\?\), getSecondaryResources options\.dedupe\. getSecondaryResources options accepts: deduplicate, eventSourceName\./,
    );
    expect(() => ctx.getSecondaryResource(PodType, { eventSourceNme: 'pods-a' } as never)).to.throw(
      UnknownOptionError,
      /getSecondaryResource options\.eventSourceNme \(did you mean "eventSourceName"\?\)/,
    );
    expect(ctx.getSecondaryResources(PodType, { eventSourceName: 'pods-a', deduplicate: false })).to.have.length(1);
  });

  it('returns the union over every source of the type', () => {
    const ctx = context([
      mapSource('pods-a', PodType, [pod('a', '1')]),
      mapSource('pods-b', PodType, [pod('b', '1')]),
      mapSource('cm', ConfigType, []),
    ]);
    const pods: Pod[] = ctx.getSecondaryResources(PodType);
    expect(pods.map((p) => p.metadata?.name)).to.deep.equal(['a', 'b']);
  });

  it('keeps the newest resourceVersion of one object served by several sources', () => {
    const ctx = context([
      mapSource('old', PodType, [pod('a', '9', 'u1', 'old'), pod('b', '5')]),
      mapSource('new', PodType, [pod('a', '10', 'u1', 'new'), pod('b', '4')]),
    ]);
    const pods = ctx.getSecondaryResources(PodType);
    expect(pods.map((p) => [p.metadata?.name, p.metadata?.resourceVersion])).to.deep.equal([
      ['a', '10'],
      ['b', '5'],
    ]);
    expect(ctx.getSecondaryResources(PodType, { deduplicate: false })).to.have.length(4);
  });

  it('treats objects with different uids as different even with the same name', () => {
    const ctx = context([mapSource('x', PodType, [pod('a', '1', 'u1')]), mapSource('y', PodType, [pod('a', '2', 'u2')])]);
    expect(ctx.getSecondaryResources(PodType)).to.have.length(2);
  });

  it('reads only the named source when eventSourceName is given', () => {
    const ctx = context([mapSource('x', PodType, [pod('a', '1')]), mapSource('y', PodType, [pod('b', '1')])]);
    expect(ctx.getSecondaryResources(PodType, { eventSourceName: 'y' }).map((p) => p.metadata?.name)).to.deep.equal(['b']);
  });

  it('throws NoEventSourceForTypeError when no source serves the type or the name', () => {
    const ctx = context([mapSource('cm', ConfigType, [])]);
    expect(() => ctx.getSecondaryResources(PodType)).to.throw(NoEventSourceForTypeError, 'v1/Pod');
    expect(() => ctx.getSecondaryResource(PodType)).to.throw(NoEventSourceForTypeError);
    expect(() => ctx.getSecondaryResources(ConfigType, { eventSourceName: 'nope' }))
      .to.throw(NoEventSourceForTypeError)
      .with.property('eventSourceName', 'nope');
  });

  it('throws MultipleEventSourcesForTypeError listing the sources for a singular read of several', () => {
    const ctx = context([mapSource('x', PodType, []), mapSource('y', PodType, [])]);
    expect(() => ctx.getSecondaryResource(PodType))
      .to.throw(MultipleEventSourcesForTypeError, 'x, y')
      .with.property('eventSourceNames')
      .that.deep.equals(['x', 'y']);
    expect(ctx.getSecondaryResource(PodType, { eventSourceName: 'y' })).to.equal(undefined);
    expect(ctx.getEventSource(PodType, 'x').name).to.equal('x');
  });

  it("returns the source a handle names as the handle's class, and checks the class at run time", () => {
    class TaggedSource {
      get tag(): string {
        return 'tagged';
      }
    }
    type Tagged = EventSource<Pod> & TaggedSource;
    const tagged: Tagged = Object.assign(Object.create(TaggedSource.prototype) as TaggedSource, mapSource('tagged', PodType, []));
    const plain = mapSource('plain', PodType, []);
    const ctx = context([tagged, plain]);
    const handle = (name: string | undefined) =>
      eventSourceHandle<Tagged>({
        type: PodType,
        eventSourceName: name,
        className: 'TaggedSource',
        accepts: (s): s is EventSource<unknown, never> & Tagged => s instanceof TaggedSource,
      });
    const found = ctx.getEventSource(handle('tagged'));
    expect(found).to.equal(tagged);
    expect(found.tag).to.equal('tagged');
    expect(() => ctx.getEventSource(handle('plain')))
      .to.throw(EventSourceClassMismatchError, /event source plain .*expects a TaggedSource/)
      .with.property('eventSourceName', 'plain');
    // The lookup itself is the one by type and name: no name and two sources is ambiguous.
    expect(() => ctx.getEventSource(handle(undefined))).to.throw(MultipleEventSourcesForTypeError);
    expect(() => ctx.getEventSource(handle('nope'))).to.throw(NoEventSourceForTypeError);
  });

  it('throws MultipleSecondaryResourcesError naming the primary when several resources match', () => {
    const ctx = context([mapSource('x', PodType, [pod('a', '1'), pod('b', '1')])]);
    expect(() => ctx.getSecondaryResource(PodType))
      .to.throw(MultipleSecondaryResourcesError, 'ns/job')
      .with.property('count', 2);
  });

  it('returns the single match or undefined', () => {
    expect(context([mapSource('x', PodType, [pod('a', '1')])]).getSecondaryResource(PodType)?.metadata?.name).to.equal('a');
    expect(context([mapSource('x', PodType, [])]).getSecondaryResource(PodType)).to.equal(undefined);
  });

  it('reads the snapshot taken at creation, not later changes', () => {
    const source = mapSource('x', PodType, [pod('a', '1')]);
    const ctx = context([source]);
    source.set([pod('a', '2'), pod('b', '1')]);
    expect(ctx.getSecondaryResources(PodType).map((p) => p.metadata?.resourceVersion)).to.deep.equal(['1']);
  });

  it('skips sources without a resource type and exposes client, retry info and final-state flag', () => {
    const ctx = new DefaultContext({
      primary,
      eventSources: [mapSource('timer', undefined, [])],
      primaryCache: emptyCache,
      client: { kind: 'client' },
      retryInfo: { attemptCount: 2, isLastAttempt: false },
      primaryFinalStateUnknown: true,
    });
    expect(() => ctx.getSecondaryResources(PodType)).to.throw(NoEventSourceForTypeError);
    expect(ctx.getClient()).to.deep.equal({ kind: 'client' });
    expect(ctx.getRetryInfo()?.attemptCount).to.equal(2);
    expect(ctx.isPrimaryFinalStateUnknown()).to.equal(true);
    expect(ctx.getPrimaryCache()).to.equal(emptyCache);
    expect(ResourceID.fromResource(primary).key).to.equal('ns/job');
  });

  it('makes the signal from a function on the first getSignal only, and a never-aborted one when none is given', () => {
    const controller = new AbortController();
    let made = 0;
    const ctx = new DefaultContext({
      primary,
      eventSources: [],
      primaryCache: emptyCache,
      client: undefined,
      signal: () => (made++, controller.signal),
    });
    expect(made, 'not before it is asked for').to.equal(0);
    expect(ctx.getSignal()).to.equal(controller.signal);
    expect(ctx.getSignal()).to.equal(controller.signal);
    expect(made).to.equal(1);
    const given = new AbortController().signal;
    expect(
      new DefaultContext({ primary, eventSources: [], primaryCache: emptyCache, client: undefined, signal: given }).getSignal(),
    ).to.equal(given);
    const none = new DefaultContext({ primary, eventSources: [], primaryCache: emptyCache, client: undefined });
    expect(none.getSignal().aborted).to.equal(false);
    expect(none.getSignal()).to.equal(none.getSignal());
  });

  it('keeps nothing of its options object, so one object refilled serves the next context', () => {
    const other: KubernetesObject = { metadata: { name: 'other', namespace: 'ns' } };
    const options: {
      -readonly [K in keyof DefaultContextOptions<KubernetesObject, string>]: DefaultContextOptions<KubernetesObject, string>[K];
    } = {
      primary,
      eventSources: [],
      primaryCache: emptyCache,
      client: 'first',
      retryInfo: { attemptCount: 2, isLastAttempt: false },
    };
    const first = new DefaultContext(options);
    options.primary = other;
    options.client = 'second';
    options.retryInfo = undefined;
    const second = new DefaultContext(options);
    expect([first.getClient(), first.getRetryInfo()?.attemptCount]).to.deep.equal(['first', 2]);
    expect([second.getClient(), second.getRetryInfo()]).to.deep.equal(['second', undefined]);
  });

  it('reads the signal of an object that holds one (an AbortController, a dispatch request) on the first getSignal only', () => {
    const controller = new AbortController();
    let reads = 0;
    const holder = {
      get signal(): AbortSignal {
        reads++;
        return controller.signal;
      },
    };
    const ctx = new DefaultContext({ primary, eventSources: [], primaryCache: emptyCache, client: undefined, signal: holder });
    expect(reads, 'not before it is asked for').to.equal(0);
    expect(ctx.getSignal()).to.equal(controller.signal);
    expect(ctx.getSignal()).to.equal(controller.signal);
    expect(reads).to.equal(1);
    const other = new AbortController();
    expect(
      new DefaultContext({ primary, eventSources: [], primaryCache: emptyCache, client: undefined, signal: other }).getSignal(),
    ).to.equal(other.signal);
  });

  it('hands out the event recorder it was given, and one that drops records by default', () => {
    const records: unknown[] = [];
    const recorder = { record: (r: unknown) => void records.push(r) };
    const ctx = new DefaultContext({ primary, eventSources: [], primaryCache: emptyCache, client: undefined, eventRecorder: recorder });
    expect(ctx.getEventRecorder()).to.equal(recorder);
    const none = new DefaultContext({ primary, eventSources: [], primaryCache: emptyCache, client: undefined });
    expect(() => none.getEventRecorder().record({ type: 'Normal', reason: 'Synced', action: 'Reconcile' })).to.not.throw();
    expect(records).to.deep.equal([]);
  });

  it('makes a lazily given primary cache and event recorder once, on first ask, and releases the cache only if made', () => {
    let caches = 0;
    let released = 0;
    const made: PrimaryCacheReader = { ...emptyCache, release: () => void released++ };
    const lazyCache = (): PrimaryCacheReader => (caches++, made);
    let recorders = 0;
    const recorder = { record: () => undefined };
    const lazyRecorder = (regarding: KubernetesObject): typeof recorder => {
      expect(regarding, 'made for the primary').to.equal(primary);
      recorders++;
      return recorder;
    };
    const unread = new DefaultContext({
      primary,
      eventSources: [],
      primaryCache: lazyCache,
      client: undefined,
      eventRecorder: lazyRecorder,
    });
    unread.release();
    expect([caches, released, recorders]).to.deep.equal([0, 0, 0]);
    const read = new DefaultContext({ primary, eventSources: [], primaryCache: lazyCache, client: undefined, eventRecorder: lazyRecorder });
    expect(read.getPrimaryCache()).to.equal(made);
    expect(read.getPrimaryCache()).to.equal(made);
    expect(read.getEventRecorder()).to.equal(recorder);
    expect(read.getEventRecorder()).to.equal(recorder);
    read.release();
    expect([caches, released, recorders]).to.deep.equal([1, 1, 1]);
  });
});
