import { expect } from 'chai';
import fc from 'fast-check';
import { Map as IMap } from 'immutable';
import { bucketArray, bucketOf, bucketSet, multimapAdd, multimapRemove, type Bucket, type StringMultimap } from './string-multimap.js';

type Op = { add: boolean; key: string; member: string } | { batch: { add: boolean; key: string; member: string }[] };

const writeArb = fc.record({
  add: fc.boolean(),
  key: fc.constantFrom('k1', 'k2'),
  member: fc.integer({ min: 0, max: 60 }).map((i) => `m${i}`),
});
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 10, arbitrary: writeArb },
  { weight: 1, arbitrary: fc.array(writeArb, { maxLength: 100 }).map((batch): Op => ({ batch })) },
);

function contentOf(map: StringMultimap): [string, string[]][] {
  return [...map.keys()].sort().map((k) => [k, [...bucketSet(map.get(k))].sort()]);
}

describe('string multimap', () => {
  it('behaves as a map of sets across every bucket shape, and never changes an old version', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), (ops) => {
        let map: StringMultimap = IMap<string, Bucket>();
        const model = new Map<string, Set<string>>();
        const versions: [StringMultimap, [string, string[]][]][] = [];
        const write = (m: StringMultimap, w: { add: boolean; key: string; member: string }): StringMultimap => {
          if (w.add) {
            const set = model.get(w.key) ?? new Set<string>();
            set.add(w.member);
            model.set(w.key, set);
            return multimapAdd(m, w.key, w.member);
          }
          model.get(w.key)?.delete(w.member);
          if (model.get(w.key)?.size === 0) model.delete(w.key);
          return multimapRemove(m, w.key, w.member);
        };
        for (const op of ops) {
          if ('batch' in op) {
            let m = map.asMutable();
            for (const w of op.batch) m = write(m, w);
            map = m.asImmutable();
          } else {
            map = write(map, op);
          }
          const expected = [...model.keys()].sort().map((k): [string, string[]] => [k, [...model.get(k)!].sort()]);
          expect(contentOf(map)).to.deep.equal(expected);
          for (const [k, members] of expected) {
            const view = bucketSet(map.get(k));
            expect(view.size).to.equal(members.length);
            expect(bucketArray(map.get(k)).sort()).to.deep.equal(members);
            for (const m of members) expect(view.has(m)).to.equal(true);
            expect(view.has('absent')).to.equal(false);
          }
          versions.push([map, expected]);
        }
        for (const [m, expected] of versions) expect(contentOf(m)).to.deep.equal(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('builds a bucket of exactly the distinct members given', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 80 }).map(String), { maxLength: 120 }), (members) => {
        const distinct = [...new Set(members)].sort();
        const bucket = bucketOf(members);
        expect(bucket === undefined ? [] : bucketArray(bucket).sort()).to.deep.equal(distinct);
        expect(bucketSet(bucket).size).to.equal(distinct.length);
      }),
    );
  });

  it('gives a set view that iterates, reports entries and calls forEach like a Set', () => {
    const view = bucketSet(bucketOf(['a', 'b']));
    expect([...view.entries()]).to.deep.equal([
      ['a', 'a'],
      ['b', 'b'],
    ]);
    const seen: string[] = [];
    view.forEach((v, v2, set) => {
      expect(v2).to.equal(v);
      expect(set).to.equal(view);
      seen.push(v);
    });
    expect(seen).to.deep.equal(['a', 'b']);
    expect([...view.keys()]).to.deep.equal(['a', 'b']);
    expect([...bucketSet(undefined)]).to.deep.equal([]);
  });
});
