import { expect } from 'chai';
import {
  DuplicateIndexerError,
  IndexedStore,
  IndexerError,
  InvalidResourceError,
  ReleasedSnapshotError,
  ResourceID,
  UnknownIndexError,
  type KubernetesObject,
  type StoreError,
} from '../index.js';

interface Job extends KubernetesObject {
  spec?: { cluster?: string; tags?: string[] };
}

function job(name: string, namespace: string | undefined, cluster: string, rv?: string, extra: Partial<Job> = {}): Job {
  return {
    kind: 'Job',
    metadata: { name, namespace, ...(rv === undefined ? {} : { resourceVersion: rv }) },
    spec: { cluster },
    ...extra,
  };
}

const byCluster = (j: Job): string[] => (j.spec?.cluster ? [j.spec.cluster] : []);

function collectErrors(store: IndexedStore<Job>): StoreError[] {
  const errors: StoreError[] = [];
  store.errors$.subscribe((e) => errors.push(e));
  return errors;
}

describe('IndexedStore', () => {
  it('gets objects by key and by ResourceID, namespaced and cluster-scoped', () => {
    const store = new IndexedStore<Job>();
    store.upsert(job('a', 'ns1', 'c1'));
    store.upsert(job('global', undefined, 'c1'));
    expect(store.get('ns1/a')?.metadata?.name).to.equal('a');
    expect(store.get(ResourceID.of('a', 'ns1'))?.metadata?.name).to.equal('a');
    expect(store.get('global')?.metadata?.name).to.equal('global');
    expect(store.get(ResourceID.of('global'))?.metadata?.name).to.equal('global');
    expect(store.has('ns2/a')).to.equal(false);
    expect(store.has('a')).to.equal(false);
    expect(store.size).to.equal(2);
  });

  it('lists one namespace, or all namespaces for undefined and the empty string', () => {
    const store = new IndexedStore<Job>();
    store.replace([job('a', 'ns1', 'c1'), job('b', 'ns1', 'c2'), job('c', 'ns2', 'c1'), job('g', undefined, 'c1')]);
    const names = (objs: Job[]): string[] => objs.map((o) => o.metadata?.name ?? '').sort();
    expect(names(store.list('ns1'))).to.deep.equal(['a', 'b']);
    expect(names(store.list('ns3'))).to.deep.equal([]);
    expect(names(store.list())).to.deep.equal(['a', 'b', 'c', 'g']);
    expect(names(store.list(''))).to.deep.equal(['a', 'b', 'c', 'g']);
    expect(names(store.list(undefined, (o) => o.spec?.cluster === 'c1'))).to.deep.equal(['a', 'c', 'g']);
    expect(store.keys().sort()).to.deep.equal(['g', 'ns1/a', 'ns1/b', 'ns2/c']);
    expect(store.keys('ns2')).to.deep.equal(['ns2/c']);
  });

  it('returns the replaced version from upsert and records the resourceVersion', () => {
    const store = new IndexedStore<Job>();
    const first = store.upsert(job('a', 'ns', 'c1', '1'));
    expect(first?.old).to.equal(undefined);
    const second = store.upsert(job('a', 'ns', 'c2', '2'));
    expect(second?.old).to.equal(first?.object);
    expect(second?.object.spec?.cluster).to.equal('c2');
    expect(store.size).to.equal(1);
    expect(store.resourceVersion).to.equal('2');
  });

  it('deletes by key or ID, returns the removed object and tolerates absence', () => {
    const store = new IndexedStore<Job>({ indexers: { byCluster } });
    store.upsert(job('a', 'ns', 'c1'));
    store.upsert(job('g', undefined, 'c1'));
    expect(store.delete('ns/a')?.metadata?.name).to.equal('a');
    expect(store.delete(ResourceID.of('g'))?.metadata?.name).to.equal('g');
    expect(store.delete('ns/a')).to.equal(undefined);
    expect(store.delete('nope', '9')).to.equal(undefined);
    expect(store.size).to.equal(0);
    expect(store.list('ns')).to.deep.equal([]);
    expect(store.indexValues('byCluster')).to.deep.equal([]);
    expect(store.resourceVersion).to.equal('9');
  });

  it('deep-freezes what it stores and passes frozen objects through untouched', () => {
    const store = new IndexedStore<Job>();
    const stored = store.upsert(job('a', 'ns', 'c1', undefined, { spec: { tags: ['x'] } }))?.object;
    expect(Object.isFrozen(stored)).to.equal(true);
    expect(Object.isFrozen(stored?.metadata)).to.equal(true);
    expect(Object.isFrozen(stored?.spec?.tags)).to.equal(true);
    const frozen = Object.freeze(job('b', 'ns', 'c1'));
    expect(store.upsert(frozen)?.object).to.equal(frozen);
  });

  it('leaves objects unfrozen with assumeFrozen', () => {
    const store = new IndexedStore<Job>({ assumeFrozen: true });
    expect(Object.isFrozen(store.upsert(job('a', 'ns', 'c1'))?.object)).to.equal(false);
  });

  it('keeps earlier snapshots unchanged across every kind of write', () => {
    const store = new IndexedStore<Job>({ indexers: { byCluster } });
    store.upsert(job('a', 'ns', 'c1', '1'));
    const snap = store.snapshot();
    store.upsert(job('a', 'ns', 'c2', '2'));
    store.upsert(job('b', 'ns', 'c1', '3'));
    store.delete('ns/a');
    store.addIndexer('byName', (j) => [j.metadata?.name ?? '']);
    store.replace([job('z', 'other', 'c9', '4')]);
    store.clear();
    expect(snap.size).to.equal(1);
    expect(snap.get('ns/a')?.spec?.cluster).to.equal('c1');
    expect(snap.keys()).to.deep.equal(['ns/a']);
    expect([...snap.indexKeys('byCluster', 'c1')]).to.deep.equal(['ns/a']);
    expect(snap.indexNames()).to.deep.equal(['byCluster']);
    expect(snap.resourceVersion).to.equal('1');
    expect(store.size).to.equal(0);
  });

  it('says whether the store was written since a snapshot was taken (hasChanged)', () => {
    const store = new IndexedStore<Job>();
    store.upsert(job('a', 'ns', 'c1', '1'));
    const older = store.snapshot();
    expect(older.hasChanged).to.equal(false);
    store.upsert(job('a', 'ns', 'c1', '1')); // a write, even of an equal object
    const newer = store.snapshot();
    expect(older.hasChanged).to.equal(true);
    expect(newer.hasChanged).to.equal(false);
    store.delete('ns/a');
    expect(newer.hasChanged).to.equal(true);
    older.release();
    expect(newer.hasChanged).to.equal(true); // the older view's changes merge into the newer's
    expect(() => older.hasChanged).to.throw(ReleasedSnapshotError);
    newer.release();
  });

  it('takes snapshots in O(1) and keeps old versions only while a snapshot is open', () => {
    const store = new IndexedStore<Job>({ indexers: { byCluster } });
    store.upsert(job('a', 'ns', 'c1', '1'));
    const first = store.snapshot();
    const second = store.snapshot();
    expect(store.openSnapshots).to.equal(2);
    store.upsert(job('a', 'ns', 'c2', '2'));
    first.release();
    first.release(); // idempotent
    expect(second.get('ns/a')?.spec?.cluster).to.equal('c1');
    expect([...second.indexKeys('byCluster', 'c1')]).to.deep.equal(['ns/a']);
    expect(second.indexValues('byCluster')).to.deep.equal(['c1']);
    second.release();
    expect(store.openSnapshots).to.equal(0);
    expect(() => first.get('ns/a')).to.throw(ReleasedSnapshotError);
    expect(store.get('ns/a')?.spec?.cluster).to.equal('c2');
  });

  it('indexes objects added before and after addIndexer', () => {
    const store = new IndexedStore<Job>();
    store.upsert(job('a', 'ns', 'c1'));
    store.upsert(job('b', 'ns', 'c2'));
    store.addIndexer('byCluster', byCluster);
    store.upsert(job('c', 'ns2', 'c1'));
    expect([...store.indexKeys('byCluster', 'c1')].sort()).to.deep.equal(['ns/a', 'ns2/c']);
    expect(store.byIndex('byCluster', 'c2').map((j) => j.metadata?.name)).to.deep.equal(['b']);
    expect(store.byIndex('byCluster', 'c3')).to.deep.equal([]);
    expect(store.indexValues('byCluster').sort()).to.deep.equal(['c1', 'c2']);
  });

  it('indexes one object under several values and drops values left empty', () => {
    const store = new IndexedStore<Job>({ indexers: { tags: (j) => j.spec?.tags ?? [] } });
    store.upsert(job('a', 'ns', 'c', undefined, { spec: { tags: ['x', 'y', 'x'] } }));
    store.upsert(job('b', 'ns', 'c', undefined, { spec: { tags: ['y'] } }));
    expect([...store.indexKeys('tags', 'y')].sort()).to.deep.equal(['ns/a', 'ns/b']);
    store.upsert(job('a', 'ns', 'c', undefined, { spec: { tags: ['z'] } }));
    expect(store.indexValues('tags').sort()).to.deep.equal(['y', 'z']);
    expect([...store.indexKeys('tags', 'y')]).to.deep.equal(['ns/b']);
    expect([...store.indexKeys('tags', 'x')]).to.deep.equal([]);
  });

  it('rejects a second indexer with the same name', () => {
    const store = new IndexedStore<Job>({ indexers: { byCluster } });
    expect(() => store.addIndexer('byCluster', byCluster))
      .to.throw(DuplicateIndexerError)
      .with.property('indexName', 'byCluster');
  });

  it('throws UnknownIndexError for a lookup in an index that does not exist', () => {
    const store = new IndexedStore<Job>({ indexers: { byCluster } });
    expect(() => store.byIndex('nope', 'x')).to.throw(UnknownIndexError, /"nope".*"byCluster"/);
    expect(() => store.indexKeys('nope', 'x')).to.throw(UnknownIndexError);
    expect(() => store.indexValues('nope')).to.throw(UnknownIndexError);
  });

  it('keeps an object whose indexer throws out of that index only, and reports it', () => {
    const boom = new Error('boom');
    const store = new IndexedStore<Job>({
      indexers: {
        fragile: (j) => {
          if (j.metadata?.name === 'bad') throw boom;
          return byCluster(j);
        },
        byCluster,
      },
    });
    const errors = collectErrors(store);
    store.replace([job('good', 'ns', 'c1'), job('bad', 'ns', 'c1')]);
    expect(store.size).to.equal(2);
    expect([...store.indexKeys('fragile', 'c1')]).to.deep.equal(['ns/good']);
    expect([...store.indexKeys('byCluster', 'c1')].sort()).to.deep.equal(['ns/bad', 'ns/good']);
    expect(errors).to.have.length(1);
    const error = errors[0] as IndexerError;
    expect(error).to.be.instanceOf(IndexerError);
    expect(error.objectKey).to.equal('ns/bad');
    expect(error.indexName).to.equal('fragile');
    expect(error.cause).to.equal(boom);
    // Deleting it must not disturb the index it never entered.
    store.delete('ns/bad');
    expect([...store.indexKeys('fragile', 'c1')]).to.deep.equal(['ns/good']);
  });

  it('reports an indexer that returns a non-array or non-strings', () => {
    const store = new IndexedStore<Job>({
      indexers: {
        weird: (j) => (j.metadata?.name === 'a' ? ('c1' as never) : ([1] as never)),
      },
    });
    const errors = collectErrors(store);
    store.upsert(job('a', 'ns', 'c1'));
    store.upsert(job('b', 'ns', 'c1'));
    expect(store.indexValues('weird')).to.deep.equal([]);
    expect(errors.map((e) => e.message)).to.deep.equal([
      'object ns/a: indexer "weird": indexer returned string, not an array of strings',
      'object ns/b: indexer "weird": indexer returned number at [0], not a string',
    ]);
  });

  it('indexes an object again when its indexer stops throwing on an update', () => {
    const store = new IndexedStore<Job>({
      indexers: {
        byCluster: (j) => {
          if (j.spec?.cluster === 'broken') throw new Error('no');
          return byCluster(j);
        },
      },
    });
    collectErrors(store);
    store.upsert(job('a', 'ns', 'broken'));
    store.upsert(job('a', 'ns', 'c1'));
    expect([...store.indexKeys('byCluster', 'c1')]).to.deep.equal(['ns/a']);
    store.upsert(job('a', 'ns', 'broken'));
    expect(store.indexValues('byCluster')).to.deep.equal([]);
  });

  it('reports an object without a name and still applies the rest of a batch', () => {
    const store = new IndexedStore<Job>();
    const errors = collectErrors(store);
    expect(store.upsert({ metadata: { namespace: 'ns' } })).to.equal(undefined);
    const deltas = store.replace([{ kind: 'Job' }, job('a', 'ns', 'c1'), null as never]);
    expect(deltas.map((d) => d.type)).to.deep.equal(['create']);
    expect(store.keys()).to.deep.equal(['ns/a']);
    expect(errors.map((e) => [e.name, (e as InvalidResourceError).field])).to.deep.equal([
      ['InvalidResourceError', 'metadata.name'],
      ['InvalidResourceError', 'metadata'],
      ['InvalidResourceError', 'metadata'],
    ]);
  });

  describe('replace', () => {
    it('returns creates, updates and deletes, and nothing for unchanged objects', () => {
      const store = new IndexedStore<Job>({ indexers: { byCluster } });
      store.replace([job('same', 'ns', 'c1', '1'), job('changed', 'ns', 'c1', '1'), job('gone', 'ns', 'c1', '1')], '10');
      const same = store.get('ns/same');
      const oldChanged = store.get('ns/changed');
      const deltas = store.replace([job('same', 'ns', 'c1', '1'), job('changed', 'ns', 'c2', '2'), job('new', 'ns2', 'c2', '3')], '20');
      expect(deltas).to.have.length(3);
      expect(deltas).to.deep.include({ type: 'update', object: store.get('ns/changed'), oldObject: oldChanged });
      expect(deltas).to.deep.include({ type: 'create', object: store.get('ns2/new') });
      const deleted = deltas.find((d) => d.type === 'delete');
      expect(deleted).to.deep.equal({ type: 'delete', object: deleted?.object, deleteStateUnknown: true });
      expect(deleted?.object.metadata?.name).to.equal('gone');
      expect(store.get('ns/same')).to.equal(same);
      expect([...store.indexKeys('byCluster', 'c2')].sort()).to.deep.equal(['ns/changed', 'ns2/new']);
      expect([...store.indexKeys('byCluster', 'c1')]).to.deep.equal(['ns/same']);
      expect(store.resourceVersion).to.equal('20');
    });

    it('compares content when an object has no resourceVersion', () => {
      const store = new IndexedStore<Job>();
      store.replace([job('a', 'ns', 'c1'), job('b', 'ns', 'c1')]);
      const deltas = store.replace([job('a', 'ns', 'c1'), job('b', 'ns', 'c2')]);
      expect(deltas.map((d) => [d.type, d.object.metadata?.name])).to.deep.equal([['update', 'b']]);
    });

    it('reports an object re-created under the same name (new uid) as a delete and a create', () => {
      const store = new IndexedStore<Job>();
      store.replace([job('a', 'ns', 'c1', '1', { metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '1' } })]);
      const old = store.get('ns/a');
      const deltas = store.replace([
        job('a', 'ns', 'c1', '1', { metadata: { name: 'a', namespace: 'ns', uid: 'u2', resourceVersion: '7' } }),
      ]);
      expect(deltas).to.deep.equal([
        { type: 'delete', object: old, deleteStateUnknown: true },
        { type: 'create', object: store.get('ns/a') },
      ]);
    });

    it('keeps the last of two objects with the same key', () => {
      const store = new IndexedStore<Job>();
      const deltas = store.replace([job('a', 'ns', 'c1', '1'), job('a', 'ns', 'c2', '2')]);
      expect(deltas).to.have.length(1);
      expect(store.get('ns/a')?.spec?.cluster).to.equal('c2');
    });

    it('empties the store when given nothing', () => {
      const store = new IndexedStore<Job>({ indexers: { byCluster } });
      store.replace([job('a', 'ns', 'c1'), job('b', undefined, 'c1')]);
      const deltas = store.replace([]);
      expect(deltas.map((d) => d.type)).to.deep.equal(['delete', 'delete']);
      expect(store.size).to.equal(0);
      expect(store.keys()).to.deep.equal([]);
      expect(store.indexValues('byCluster')).to.deep.equal([]);
    });
  });

  describe('batch', () => {
    it('applies every write at once, indexes included', () => {
      const store = new IndexedStore<Job>({ indexers: { byCluster } });
      store.upsert(job('gone', 'ns', 'c1', '1'));
      const before = store.snapshot();
      const returned = store.batch((w) => {
        w.upsert(job('a', 'ns', 'c1', '2'));
        w.upsert(job('b', 'ns', 'c2', '3'));
        w.delete('ns/gone', '4');
        expect(store.size).to.equal(1); // readers see nothing until the batch ends
        expect(w.get('ns/a')?.metadata?.name).to.equal('a');
        expect(w.get('ns/gone')).to.equal(undefined);
        return 'done';
      });
      expect(returned).to.equal('done');
      expect(store.keys().sort()).to.deep.equal(['ns/a', 'ns/b']);
      expect([...store.indexKeys('byCluster', 'c1')]).to.deep.equal(['ns/a']);
      expect(store.resourceVersion).to.equal('4');
      expect(before.keys()).to.deep.equal(['ns/gone']);
    });

    it('applies nothing when the batch throws', () => {
      const store = new IndexedStore<Job>({ indexers: { byCluster } });
      store.upsert(job('a', 'ns', 'c1'));
      const before = store.snapshot();
      expect(() =>
        store.batch((w) => {
          w.upsert(job('b', 'ns', 'c1'));
          w.delete('ns/a');
          throw new Error('stop');
        }),
      ).to.throw('stop');
      expect(store.keys()).to.deep.equal(before.keys());
      expect(store.get('ns/a')).to.equal(before.get('ns/a'));
      expect(store.size).to.equal(1);
      expect([...store.indexKeys('byCluster', 'c1')]).to.deep.equal(['ns/a']);
    });

    it('refuses writes through a writer kept after its batch', () => {
      const store = new IndexedStore<Job>();
      const writer = store.batch((w) => w);
      expect(() => writer.upsert(job('a', 'ns', 'c1'))).to.throw(/after the batch ended/);
      expect(store.size).to.equal(0);
    });
  });

  it('clears the content and keeps the indexers', () => {
    const store = new IndexedStore<Job>({ indexers: { byCluster } });
    store.upsert(job('a', 'ns', 'c1', '5'));
    store.clear();
    expect(store.size).to.equal(0);
    expect(store.resourceVersion).to.equal(undefined);
    expect(store.indexValues('byCluster')).to.deep.equal([]);
    store.upsert(job('b', 'ns', 'c1'));
    expect([...store.indexKeys('byCluster', 'c1')]).to.deep.equal(['ns/b']);
  });
});
