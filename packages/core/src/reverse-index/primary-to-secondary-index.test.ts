import { expect } from 'chai';
import fc from 'fast-check';
import { MapperError, PrimaryToSecondaryIndex, ResourceID, type KubernetesObject } from '../index.js';

/** A secondary naming its primaries (same namespace) in `refs`; `poison` makes the mapper throw. */
interface Secondary extends KubernetesObject {
  refs: readonly string[];
  poison?: boolean;
}

function secondary(name: string, refs: readonly string[], poison = false): Secondary {
  return { metadata: { name, namespace: 'ns' }, refs, poison };
}

const toPrimaryIds = (s: Secondary): ResourceID[] => {
  if (s.poison) throw new Error(`poisoned ${s.metadata?.name}`);
  return s.refs.map((r) => ResourceID.of(r, 'ns'));
};

const keys = (ids: readonly ResourceID[]): string[] => ids.map((id) => id.key).sort();

function newIndex(): { index: PrimaryToSecondaryIndex<Secondary>; errors: MapperError[] } {
  const index = new PrimaryToSecondaryIndex<Secondary>({ toPrimaryIds });
  const errors: MapperError[] = [];
  index.errors$.subscribe((e) => errors.push(e));
  return { index, errors };
}

describe('PrimaryToSecondaryIndex', () => {
  it('indexes a new secondary under every primary it maps to', () => {
    const { index } = newIndex();
    const update = index.onAddOrUpdate(secondary('s', ['p1', 'p2']));
    expect(keys(update.newPrimaries)).to.deep.equal(['ns/p1', 'ns/p2']);
    expect(update.oldPrimaries).to.deep.equal([]);
    expect([...index.secondaryKeys('ns/p1')]).to.deep.equal(['ns/s']);
    expect([...index.secondaryKeys(ResourceID.of('p2', 'ns'))]).to.deep.equal(['ns/s']);
    expect([...index.primaryKeys('ns/s')].sort()).to.deep.equal(['ns/p1', 'ns/p2']);
  });

  it('moves a secondary whose reference moves and returns both primaries', () => {
    const { index } = newIndex();
    index.onAddOrUpdate(secondary('s', ['p1']));
    index.onAddOrUpdate(secondary('t', ['p1']));
    const update = index.onAddOrUpdate(secondary('s', ['p2']));
    expect(keys(update.newPrimaries)).to.deep.equal(['ns/p2']);
    expect(keys(update.oldPrimaries)).to.deep.equal(['ns/p1']);
    expect([...index.secondaryKeys('ns/p1')]).to.deep.equal(['ns/t']);
    expect([...index.secondaryKeys('ns/p2')]).to.deep.equal(['ns/s']);
  });

  it('removes a secondary only from the primaries it no longer maps to, dropping empty keys', () => {
    const { index } = newIndex();
    index.onAddOrUpdate(secondary('s', ['p1', 'p2']));
    index.onAddOrUpdate(secondary('s', ['p2', 'p3']));
    expect(index.secondaryKeys('ns/p1').size).to.equal(0);
    expect([...index.secondaryKeys('ns/p2')]).to.deep.equal(['ns/s']);
    expect([...index.secondaryKeys('ns/p3')]).to.deep.equal(['ns/s']);
    expect(index.snapshot().primaryCount).to.equal(2);
    index.onAddOrUpdate(secondary('s', []));
    expect(index.snapshot().primaryCount).to.equal(0);
    expect(index.snapshot().secondaryCount).to.equal(0);
  });

  it('answers each secondary as the version last given, and says when a snapshot is behind (hasChanged)', () => {
    const { index } = newIndex();
    const first = secondary('s', ['p1']);
    index.onAddOrUpdate(first);
    const snap = index.snapshot();
    expect(index.secondariesOf('ns/p1')).to.deep.equal([first]);
    const second = secondary('s', ['p1']);
    index.onAddOrUpdate(second, first); // same references: the entries stay, the object is the new one
    expect(index.secondariesOf('ns/p1')[0]).to.equal(second);
    expect(snap.hasChanged).to.equal(false);
    index.onAddOrUpdate(secondary('s', ['p2']), second);
    expect(snap.hasChanged).to.equal(true);
    expect(index.secondariesOf(ResourceID.of('p1', 'ns'))).to.deep.equal([]);
    snap.release();
  });

  it('forgets a deleted secondary, by object or by ID, and tolerates unknown ones', () => {
    const { index } = newIndex();
    index.onAddOrUpdate(secondary('s', ['p1', 'p2']));
    index.onAddOrUpdate(secondary('t', ['p1']));
    const gone = index.onDelete(secondary('s', ['p1', 'p2']));
    expect(keys(gone.oldPrimaries)).to.deep.equal(['ns/p1', 'ns/p2']);
    expect(gone.newPrimaries).to.deep.equal([]);
    expect(keys(index.onDelete(ResourceID.of('t', 'ns')).oldPrimaries)).to.deep.equal(['ns/p1']);
    expect(index.snapshot().primaryCount).to.equal(0);
    expect(index.onDelete(ResourceID.of('never', 'ns')).oldPrimaries).to.deep.equal([]);
  });

  it('reports the primaries of a secondary it never recorded when it is deleted', () => {
    const { index } = newIndex();
    expect(keys(index.onDelete(secondary('s', ['p1'])).oldPrimaries)).to.deep.equal(['ns/p1']);
    expect(index.snapshot().primaryCount).to.equal(0);
  });

  it('keeps the previous entries when the mapper throws on an update, and reports it', () => {
    const { index, errors } = newIndex();
    index.onAddOrUpdate(secondary('s', ['p1']));
    const update = index.onAddOrUpdate(secondary('s', ['p2'], true));
    expect(keys(update.newPrimaries)).to.deep.equal(['ns/p1']);
    expect(keys(update.oldPrimaries)).to.deep.equal(['ns/p1']);
    expect([...index.secondaryKeys('ns/p1')]).to.deep.equal(['ns/s']);
    expect(errors).to.have.length(1);
    expect(errors[0]).to.be.instanceOf(MapperError);
    expect(errors[0]?.objectKey).to.equal('ns/s');
    expect((errors[0]?.cause as Error).message).to.equal('poisoned s');
  });

  it('cleans up on delete even when the mapper would throw now', () => {
    const { index, errors } = newIndex();
    index.onAddOrUpdate(secondary('s', ['p1']));
    expect(keys(index.onDelete(secondary('s', ['p1'], true)).oldPrimaries)).to.deep.equal(['ns/p1']);
    expect(index.snapshot().primaryCount).to.equal(0);
    expect(errors).to.deep.equal([]);
  });

  it('reports a mapper that returns something other than ResourceIDs', () => {
    const index = new PrimaryToSecondaryIndex<Secondary>({
      toPrimaryIds: (s) => (s.refs[0] === 'null' ? (null as never) : (s.refs as never)),
    });
    const errors: MapperError[] = [];
    index.errors$.subscribe((e) => errors.push(e));
    index.onAddOrUpdate(secondary('a', ['null']));
    index.onAddOrUpdate(secondary('b', ['p1']));
    expect(index.snapshot().primaryCount).to.equal(0);
    expect(errors.map((e) => e.message)).to.deep.equal([
      'object ns/a: mapper returned null, not an iterable of ResourceIDs',
      'object ns/b: mapper returned string among its ResourceIDs',
    ]);
  });

  it('accepts any iterable of ResourceIDs and ignores duplicates', () => {
    const index = new PrimaryToSecondaryIndex<Secondary>({
      toPrimaryIds: function* (s) {
        for (const r of s.refs) yield ResourceID.of(r, 'ns');
      },
    });
    const update = index.onAddOrUpdate(secondary('s', ['p1', 'p1', 'p2']));
    expect(keys(update.newPrimaries)).to.deep.equal(['ns/p1', 'ns/p2']);
    const fromSet = new PrimaryToSecondaryIndex<Secondary>({ toPrimaryIds: () => new Set([ResourceID.of('p', 'ns')]) });
    fromSet.onAddOrUpdate(secondary('s', []));
    expect([...fromSet.secondaryKeys('ns/p')]).to.deep.equal(['ns/s']);
  });

  it('reads an array result as it is: duplicates ignored, a bad entry reported, the array neither changed nor kept', () => {
    const results = new Map<string, unknown[]>();
    const index = new PrimaryToSecondaryIndex<Secondary>({ toPrimaryIds: (s) => results.get(s.metadata!.name!) as ResourceID[] });
    const errors: string[] = [];
    index.errors$.subscribe((e) => errors.push(e.message));
    const twice = [ResourceID.of('p1', 'ns'), ResourceID.of('p2', 'ns'), ResourceID.of('p1', 'ns')];
    const one = [ResourceID.of('p3', 'ns')];
    results
      .set('a', twice)
      .set('b', one)
      .set('c', [ResourceID.of('p1', 'ns'), 'p2']);
    expect(keys(index.onAddOrUpdate(secondary('a', [])).newPrimaries)).to.deep.equal(['ns/p1', 'ns/p2']);
    expect(keys(index.onAddOrUpdate(secondary('b', [])).newPrimaries)).to.deep.equal(['ns/p3']);
    index.onAddOrUpdate(secondary('c', []));
    expect(errors).to.deep.equal(['object ns/c: mapper returned string among its ResourceIDs']);
    expect(Object.isFrozen(twice) || Object.isFrozen(one)).to.equal(false);
    // The mapper reuses its arrays: what the index recorded must not follow.
    one[0] = ResourceID.of('p9', 'ns');
    twice.length = 0;
    expect([...index.primaryKeys('ns/b')]).to.deep.equal(['ns/p3']);
    expect([...index.primaryKeys('ns/a')].sort()).to.deep.equal(['ns/p1', 'ns/p2']);
    expect([...index.secondaryKeys('ns/p1')]).to.deep.equal(['ns/a']);
  });

  it('seeds its whole content in one batch, replacing what it had', () => {
    const { index, errors } = newIndex();
    index.onAddOrUpdate(secondary('old', ['p9']));
    index.seed([secondary('a', ['p1']), secondary('b', ['p1', 'p2']), secondary('bad', ['p1'], true)]);
    expect([...index.secondaryKeys('ns/p1')].sort()).to.deep.equal(['ns/a', 'ns/b']);
    expect([...index.secondaryKeys('ns/p2')]).to.deep.equal(['ns/b']);
    expect(index.secondaryKeys('ns/p9').size).to.equal(0);
    expect(errors.map((e) => e.objectKey)).to.deep.equal(['ns/bad']);
  });

  it('keeps snapshots unchanged by later events', () => {
    const { index } = newIndex();
    index.onAddOrUpdate(secondary('s', ['p1']));
    const snap = index.snapshot();
    index.onAddOrUpdate(secondary('s', ['p2']));
    index.onAddOrUpdate(secondary('t', ['p1']));
    index.clear();
    expect([...snap.secondaryKeys('ns/p1')]).to.deep.equal(['ns/s']);
    expect(snap.secondaryKeys('ns/p2').size).to.equal(0);
    expect(index.snapshot().primaryCount).to.equal(0);
  });

  it('equals the index recomputed from scratch and returns every primary whose secondaries changed', () => {
    const names = ['s0', 's1', 's2', 's3', 's4'];
    const primaries = ['p0', 'p1', 'p2', 'p3'];
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('upsert' as const),
        name: fc.constantFrom(...names),
        refs: fc.array(fc.constantFrom(...primaries), { maxLength: 4 }),
        poison: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
      }),
      fc.record({ kind: fc.constant('delete' as const), name: fc.constantFrom(...names) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const index = new PrimaryToSecondaryIndex<Secondary>({ toPrimaryIds });
        index.errors$.subscribe(() => undefined);
        // The model: each live secondary's last mapping that did not throw.
        const lastGood = new Map<string, readonly string[]>();
        const expected = (): Map<string, string[]> => {
          const reverse = new Map<string, string[]>();
          for (const [s, refs] of lastGood) {
            for (const p of new Set(refs)) reverse.set(`ns/${p}`, [...(reverse.get(`ns/${p}`) ?? []), `ns/${s}`]);
          }
          return reverse;
        };
        const actual = (): Map<string, string[]> => {
          const out = new Map<string, string[]>();
          for (const p of primaries) {
            const found = [...index.secondaryKeys(`ns/${p}`)];
            if (found.length > 0) out.set(`ns/${p}`, found);
          }
          return out;
        };
        const normalize = (m: Map<string, string[]>): [string, string[]][] =>
          [...m].map(([k, v]): [string, string[]] => [k, [...v].sort()]).sort(([a], [b]) => a.localeCompare(b));
        let before = actual();
        for (const o of ops) {
          const result =
            o.kind === 'upsert'
              ? index.onAddOrUpdate(secondary(o.name, o.refs, o.poison))
              : index.onDelete(secondary(o.name, lastGood.get(o.name) ?? []));
          if (o.kind === 'delete') lastGood.delete(o.name);
          else if (!o.poison) lastGood.set(o.name, o.refs);
          const after = actual();
          expect(normalize(after)).to.deep.equal(normalize(expected()));
          const enqueued = new Set([...result.newPrimaries, ...result.oldPrimaries].map((id) => id.key));
          for (const p of primaries) {
            const key = `ns/${p}`;
            const was = (before.get(key) ?? []).sort().join();
            const is = (after.get(key) ?? []).sort().join();
            if (was !== is) expect(enqueued.has(key), `${key} changed but was not returned`).to.equal(true);
          }
          before = after;
        }
      }),
      { numRuns: 300 },
    );
  });
});
