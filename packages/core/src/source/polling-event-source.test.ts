import { expect } from 'chai';
import {
  FakeClock,
  PerResourcePollingEventSource,
  PollingEventSource,
  secondaryType,
  type EventSourceHealth,
  type KubernetesObject,
  type Trigger,
} from '../index.js';

interface Bucket {
  readonly id: string;
  readonly size: number;
}
const BucketType = secondaryType<Bucket>('test/Bucket');
const primary = (name: string): KubernetesObject => ({ metadata: { name, namespace: 'ns' } });

describe('PollingEventSource', () => {
  function setup(initial: Record<string, Bucket[]>) {
    const clock = new FakeClock();
    let data: Record<string, Bucket[]> | Error = initial;
    const source = new PollingEventSource<Bucket>({
      resourceType: BucketType,
      periodMs: 1000,
      clock,
      fetch: async () => {
        if (data instanceof Error) throw data;
        return Object.entries(data);
      },
    });
    const seen: Trigger[] = [];
    source.triggers$.subscribe((t) => seen.push(t));
    const health: EventSourceHealth[] = [];
    source.health$.subscribe((h) => health.push(h));
    return { clock, source, seen, health, set: (d: Record<string, Bucket[]> | Error) => (data = d) };
  }

  it('fills its cache on start without triggering', async () => {
    const { source, seen } = setup({ 'ns/a': [{ id: 'b1', size: 1 }] });
    await source.start();
    expect(source.getSecondaryResources(primary('a'))).to.deep.equal([{ id: 'b1', size: 1 }]);
    expect(source.getSecondaryResources(primary('zzz'))).to.deep.equal([]);
    expect(seen).to.have.length(0);
    await source.stop();
  });

  it('triggers exactly the primaries whose resources appeared, changed or vanished', async () => {
    const t = setup({ 'ns/a': [{ id: 'b1', size: 1 }], 'ns/b': [{ id: 'b2', size: 2 }], 'ns/c': [{ id: 'b3', size: 3 }] });
    await t.source.start();
    t.set({ 'ns/a': [{ id: 'b1', size: 10 }], 'ns/b': [{ id: 'b2', size: 2 }], 'ns/d': [{ id: 'b4', size: 4 }] });
    await t.clock.advance(1000);
    const changes = t.seen.map((s) => [s.primaryIds[0]?.key, s.cause.type === 'poll' ? s.cause.change : '']);
    expect(changes).to.have.deep.members([
      ['ns/a', 'updated'],
      ['ns/d', 'added'],
      ['ns/c', 'deleted'],
    ]);
    expect(t.seen.every((s) => s.source === 'test/Bucket')).to.equal(true);
    await t.source.stop();
  });

  it('keeps a snapshot unchanged by later polls', async () => {
    const t = setup({ 'ns/a': [{ id: 'b1', size: 1 }] });
    await t.source.start();
    const snap = t.source.snapshot();
    t.set({ 'ns/a': [{ id: 'b1', size: 2 }] });
    await t.clock.advance(1000);
    expect(snap.getSecondaryResources(primary('a'))[0]?.size).to.equal(1);
    expect(t.source.getSecondaryResources(primary('a'))[0]?.size).to.equal(2);
    await t.source.stop();
  });

  it('keeps the last cache and reports unhealthy when a poll fails, then recovers', async () => {
    const t = setup({ 'ns/a': [{ id: 'b1', size: 1 }] });
    await t.source.start();
    t.set(new Error('boom'));
    await t.clock.advance(1000);
    expect(t.health.at(-1)?.status).to.equal('unhealthy');
    expect((t.health.at(-1)?.error as Error).message).to.equal('boom');
    expect(t.source.getSecondaryResources(primary('a'))).to.have.length(1);
    t.set({ 'ns/a': [{ id: 'b1', size: 1 }] });
    await t.clock.advance(1000);
    expect(t.health.at(-1)?.status).to.equal('healthy');
    expect(t.seen).to.have.length(0);
    await t.source.stop();
  });

  it('stops polling on stop', async () => {
    const t = setup({});
    await t.source.start();
    await t.source.stop();
    expect(t.clock.pendingTimers()).to.equal(0);
    expect(t.health.at(-1)?.status).to.equal('stopped');
  });
});

describe('PerResourcePollingEventSource', () => {
  it('polls each known primary and triggers those whose resources changed', async () => {
    const clock = new FakeClock();
    const sizes = new Map<string, number>([
      ['a', 1],
      ['b', 1],
    ]);
    let primaries = [primary('a'), primary('b')];
    const calls: string[] = [];
    const source = new PerResourcePollingEventSource<Bucket>({
      resourceType: BucketType,
      periodMs: 500,
      clock,
      primaries: () => primaries,
      fetch: async (p) => {
        const name = p.metadata?.name as string;
        calls.push(name);
        if (name === 'broken') throw new Error('unreachable');
        return [{ id: name, size: sizes.get(name) ?? 0 }];
      },
    });
    const seen: Trigger[] = [];
    source.triggers$.subscribe((t) => seen.push(t));
    await source.start();
    expect(calls.sort()).to.deep.equal(['a', 'b']);
    expect(seen).to.have.length(0);

    sizes.set('b', 7);
    primaries = [primary('a'), primary('b'), primary('broken')];
    await clock.advance(500);
    expect(seen.map((t) => t.primaryIds[0]?.key)).to.deep.equal(['ns/b']);
    expect(source.getSecondaryResources(primary('b'))).to.deep.equal([{ id: 'b', size: 7 }]);

    primaries = [primary('b')];
    await clock.advance(500);
    expect(source.getSecondaryResources(primary('a'))).to.deep.equal([]);
    expect(seen).to.have.length(1);
    await source.stop();
  });

  it('refresh fetches one primary at once and triggers it when its resources changed', async () => {
    const clock = new FakeClock();
    let size = 1;
    const source = new PerResourcePollingEventSource<Bucket>({
      resourceType: BucketType,
      periodMs: 60_000,
      clock,
      primaries: () => [],
      fetch: async (p) => [{ id: p.metadata?.name as string, size }],
    });
    const seen: Trigger[] = [];
    source.triggers$.subscribe((t) => seen.push(t));
    await source.start();
    expect(await source.refresh(primary('new'))).to.deep.equal([{ id: 'new', size: 1 }]);
    expect(seen.map((t) => t.primaryIds[0]?.key)).to.deep.equal(['ns/new']);
    await source.refresh(primary('new'));
    expect(seen).to.have.length(1);
    size = 2;
    await source.refresh(primary('new'));
    expect(seen).to.have.length(2);
    await source.stop();
  });

  it('reports a failing fetch as unhealthy and still polls the others', async () => {
    const clock = new FakeClock();
    const source = new PerResourcePollingEventSource<Bucket>({
      resourceType: BucketType,
      periodMs: 500,
      clock,
      primaries: () => [primary('ok'), primary('broken')],
      fetch: async (p) => {
        if (p.metadata?.name === 'broken') throw new Error('unreachable');
        return [{ id: 'x', size: 1 }];
      },
    });
    const health: EventSourceHealth[] = [];
    source.health$.subscribe((h) => health.push(h));
    await source.start();
    expect(health.at(-1)?.status).to.equal('unhealthy');
    expect(String((health.at(-1)?.error as Error).message)).to.contain('ns/broken');
    expect(source.getSecondaryResources(primary('ok'))).to.have.length(1);
    await source.stop();
  });
});
