import { expect } from 'chai';
import fc from 'fast-check';
import { IndexedStore, ResourceID, type KubernetesObject, type StoreDelta } from '@kindex/core';
import { deepFreeze } from '@kindex/core/internal';
import { BoundedStore } from '../../index.js';

interface Thing extends KubernetesObject {
  data?: { v: number };
}

/** What the reflector does to its store, in the terms of a server that changes (rv, uid, generation). */
type Op =
  | { kind: 'event'; key: number; v: number; spec: boolean; finalizer: boolean }
  | { kind: 'replay'; key: number }
  | { kind: 'delete'; key: number }
  | { kind: 'recreate'; key: number }
  | { kind: 'relist'; drop: number[]; change: number[]; add: number[] }
  | { kind: 'get'; key: number };

const KEYS = 8;
const keyArb = fc.integer({ min: 0, max: KEYS - 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('event' as const), key: keyArb, v: fc.nat(3), spec: fc.boolean(), finalizer: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('replay' as const), key: keyArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: keyArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('recreate' as const), key: keyArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('relist' as const),
      drop: fc.array(keyArb, { maxLength: 3 }),
      change: fc.array(keyArb, { maxLength: 3 }),
      add: fc.array(keyArb, { maxLength: 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('get' as const), key: keyArb }) },
);

/** The server: the truth both stores follow, with resourceVersions, uids and generations as kube-apiserver gives them. */
class Server {
  readonly objects = new Map<string, Thing>();
  #rv = 0;
  #uid = 0;

  keyOf(n: number): string {
    return n % 2 === 0 ? `ns/k${n}` : `k${n}`; // namespaced and cluster-scoped names
  }

  write(n: number, v: number, spec: boolean, finalizer: boolean, recreate = false): Thing {
    const id = ResourceID.parse(this.keyOf(n));
    const before = recreate ? undefined : this.objects.get(id.key);
    const generation = (before?.metadata?.generation ?? 0) + (spec || before === undefined ? 1 : 0);
    const obj: Thing = deepFreeze({
      apiVersion: 'v1',
      kind: 'Thing',
      metadata: {
        name: id.name,
        ...(id.namespace !== undefined ? { namespace: id.namespace } : {}),
        resourceVersion: String(++this.#rv),
        uid: before?.metadata?.uid ?? `uid-${++this.#uid}`,
        generation,
        ...(finalizer ? { finalizers: ['things.example.com/finalizer', 'other'] } : {}),
      },
      data: { v },
    });
    this.objects.set(id.key, obj);
    return obj;
  }

  delete(n: number): Thing | undefined {
    const key = this.keyOf(n);
    const obj = this.objects.get(key);
    this.objects.delete(key);
    return obj;
  }

  get rv(): string {
    return String(this.#rv);
  }
}

/** The fields a minimal object keeps, to compare an old object of the bounded store with the model's. */
function essence(obj: KubernetesObject | undefined): unknown {
  if (obj === undefined) return undefined;
  const m = obj.metadata!;
  return [m.namespace, m.name, m.resourceVersion, m.uid, m.generation, m.finalizers];
}

function deltaEssence(d: StoreDelta<Thing>): unknown {
  return [
    d.type,
    essence(d.object),
    d.type === 'update' ? essence(d.oldObject) : undefined,
    d.type === 'delete' ? d.deleteStateUnknown : undefined,
  ];
}

/**
 * The deltas of a relist, in order, except the deletes of objects missing from the list: those
 * follow, sorted by key, since the stores find them in different orders (insertion order of a map
 * by namespace, or slot order) and their order means nothing.
 */
function relistEssence(deltas: StoreDelta<Thing>[], listed: ReadonlySet<string>): unknown {
  const vanished = deltas.filter((d) => !listed.has(ResourceID.keyOfResource(d.object)));
  expect(vanished.every((d) => d.type === 'delete' && d.deleteStateUnknown)).to.equal(true);
  const keyOf = (d: StoreDelta<Thing>) => ResourceID.keyOfResource(d.object);
  vanished.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
  return [...deltas.filter((d) => listed.has(keyOf(d))).map(deltaEssence), ...vanished.map(deltaEssence)];
}

describe('BoundedStore', () => {
  it('reports exactly what an unbounded store reports, keeps at most maxObjects and knows every object', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(opArb, { maxLength: 60 }), (max, ops) => {
        const server = new Server();
        const model = new IndexedStore<Thing>({ assumeFrozen: true });
        const bounded = new BoundedStore<Thing>({ bound: { maxObjects: max }, fetch: async () => undefined });
        let lastWritten: string | undefined;
        for (const op of ops) {
          switch (op.kind) {
            case 'event':
            case 'recreate': {
              if (op.kind === 'recreate' && server.delete(op.key) === undefined) break;
              const obj =
                op.kind === 'event' ? server.write(op.key, op.v, op.spec, op.finalizer) : server.write(op.key, 0, true, false, true);
              const expected = model.upsertIfChanged(obj);
              const actual = bounded.upsertIfChanged(obj);
              expect(actual?.object).to.equal(expected?.object);
              expect(essence(actual?.old)).to.deep.equal(essence(expected?.old));
              lastWritten = ResourceID.keyOfResource(obj);
              break;
            }
            case 'replay': {
              const obj = server.objects.get(server.keyOf(op.key));
              if (obj === undefined) break;
              expect(model.upsertIfChanged(obj)).to.equal(undefined);
              expect(bounded.upsertIfChanged(obj)).to.equal(undefined);
              break;
            }
            case 'delete': {
              const gone = server.delete(op.key);
              const key = server.keyOf(op.key);
              expect(essence(bounded.delete(key, server.rv))).to.deep.equal(essence(model.delete(key, server.rv)));
              if (gone !== undefined && lastWritten === key) lastWritten = undefined;
              break;
            }
            case 'relist': {
              for (const n of op.drop) server.delete(n);
              for (const n of op.change) if (server.objects.has(server.keyOf(n))) server.write(n, 9, false, false);
              for (const n of op.add) if (!server.objects.has(server.keyOf(n))) server.write(n, 0, true, true);
              const list = [...server.objects.values()];
              const listed = new Set(list.map((obj) => ResourceID.keyOfResource(obj)));
              const expected = relistEssence(model.replace(list, server.rv), listed);
              const actual = relistEssence(bounded.replace(list, server.rv), listed);
              expect(actual).to.deep.equal(expected);
              expect(bounded.resourceVersion).to.equal(model.resourceVersion);
              lastWritten = undefined;
              break;
            }
            case 'get': {
              const got = bounded.get(server.keyOf(op.key));
              if (got !== undefined) expect(got).to.equal(model.get(server.keyOf(op.key)));
              break;
            }
          }
          expect(bounded.size).to.be.at.most(max);
          expect(bounded.knownSize).to.equal(model.size);
          for (const key of model.keys()) expect(bounded.knows(key), key).to.equal(true);
          for (const obj of bounded.list()) expect(obj).to.equal(model.get(ResourceID.keyOfResource(obj)));
          // The object written last is the most recently used: never the one evicted.
          if (lastWritten !== undefined && model.has(lastWritten)) expect(bounded.has(lastWritten)).to.equal(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('loads an evicted object from the API once for concurrent callers, and keeps it again', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 4, max: 10 }), async (max, count) => {
        const server = new Server();
        let fetches = 0;
        const bounded = new BoundedStore<Thing>({
          bound: { maxObjects: max },
          fetch: async (id) => {
            fetches++;
            await Promise.resolve();
            return server.objects.get(id.key);
          },
        });
        for (let n = 0; n < count; n++) bounded.upsertIfChanged(server.write(n % KEYS, n, true, false));
        const evicted = [...server.objects.keys()].filter((key) => !bounded.has(key));
        expect(evicted.length).to.be.greaterThan(0);
        const key = evicted[0]!;
        const [a, b] = await Promise.all([bounded.load(key), bounded.load(key)]);
        expect(a).to.equal(server.objects.get(key));
        expect(b).to.equal(a);
        expect(fetches).to.equal(1);
        expect(bounded.get(key)).to.equal(a); // in memory again: no second read
        expect(await bounded.load(key)).to.equal(a);
        expect(fetches).to.equal(1);
        expect(bounded.stats).to.include({ loads: 1, restored: 1 });
        expect(bounded.size).to.be.at.most(max);
      }),
      { numRuns: 100 },
    );
  });

  it('returns a newer version than the watch reported without keeping it, so its watch event still counts', async () => {
    const server = new Server();
    const bounded = new BoundedStore<Thing>({ bound: { maxObjects: 1 }, fetch: async (id) => server.objects.get(id.key) });
    bounded.upsertIfChanged(server.write(0, 1, true, false));
    bounded.upsertIfChanged(server.write(1, 1, true, false)); // evicts k0
    const newer = server.write(0, 2, true, false); // the watch has not told yet
    expect(await bounded.load(server.keyOf(0))).to.equal(newer);
    expect(bounded.has(server.keyOf(0))).to.equal(false);
    const written = bounded.upsertIfChanged(newer);
    expect(written?.object).to.equal(newer);
    expect(written?.old?.metadata?.resourceVersion).to.equal('1');
  });

  it('drops objects not used within expireAfterAccessMs, and a get counts as a use', async () => {
    const server = new Server();
    const bounded = new BoundedStore<Thing>({ bound: { expireAfterAccessMs: 60 }, fetch: async () => undefined });
    bounded.upsertIfChanged(server.write(0, 1, true, false));
    bounded.upsertIfChanged(server.write(1, 1, true, false));
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      expect(bounded.get(server.keyOf(1))).to.not.equal(undefined);
    }
    expect(bounded.has(server.keyOf(0))).to.equal(false);
    expect(bounded.has(server.keyOf(1))).to.equal(true);
    expect(bounded.knownSize).to.equal(2);
    expect(bounded.stats.evicted).to.equal(1);
  });

  it('refuses an index, since it would miss the objects out of memory', () => {
    const bounded = new BoundedStore({ bound: { maxObjects: 10 }, fetch: async () => undefined });
    expect(() => bounded.addIndexer('byApp', () => [])).to.throw(TypeError, 'a bounded cache holds no index ("byApp" would miss');
  });

  for (const [bound, message] of [
    [
      { maxObjects: 0 },
      'BoundedStore: cacheBound.maxObjects must be a positive integer (the most objects kept in memory), got 0; set 1 or more',
    ],
    [{ maxObjects: -5 }, 'cacheBound.maxObjects must be a positive integer (the most objects kept in memory), got -5'],
    [{ maxObjects: 2.5 }, 'cacheBound.maxObjects must be a positive integer (the most objects kept in memory), got 2.5'],
    [{ expireAfterAccessMs: 0 }, 'cacheBound.expireAfterAccessMs must be a positive integer of milliseconds, got 0'],
    [{ expireAfterAccessMs: -1 }, 'cacheBound.expireAfterAccessMs must be a positive integer of milliseconds, got -1'],
    [{}, 'cacheBound bounds nothing; set maxObjects (e.g. 1000) and/or expireAfterAccessMs, or leave cacheBound out'],
    [{ max: 5 }, 'cacheBound.max is not an option; use maxObjects and/or expireAfterAccessMs'],
  ] as const) {
    it(`rejects ${JSON.stringify(bound)} with one line naming the option and the fix`, () => {
      expect(() => new BoundedStore({ bound: bound as never, fetch: async () => undefined })).to.throw(TypeError, message);
    });
  }
});
