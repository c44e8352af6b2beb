import { expect } from 'chai';
import fc from 'fast-check';
import type { KubernetesObject } from '../../index.js';
import { ChunkTable } from './chunk-table.js';

type Op = { set: string; v: number } | { del: string } | { batch: Op[] };

const nameArb = fc.oneof(
  fc.integer({ min: 0, max: 300 }).map((i) => `obj-${i}`),
  fc.string({ maxLength: 3 }),
);
const writeArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ set: nameArb, v: fc.nat(9) }) },
  { weight: 1, arbitrary: fc.record({ del: nameArb }) },
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: writeArb },
  { weight: 1, arbitrary: fc.array(writeArb, { maxLength: 200 }).map((batch): Op => ({ batch })) },
);

const obj = (name: string, v: number): KubernetesObject => ({ metadata: { name, resourceVersion: String(v) } });

function contentOf(table: ChunkTable<KubernetesObject>): [string, string | undefined][] {
  return [...table.values()]
    .map((o): [string, string | undefined] => [o.metadata?.name ?? '', o.metadata?.resourceVersion])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

describe('ChunkTable', () => {
  it('behaves as a map from name to object across growth, deletes and batches, keeping every version', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 80 }), (ops) => {
        let table = ChunkTable.empty<KubernetesObject>((o) => o.metadata?.name ?? '');
        const model = new Map<string, number>();
        const versions: [ChunkTable<KubernetesObject>, [string, string | undefined][]][] = [];
        const apply = (t: ChunkTable<KubernetesObject>, op: Op): ChunkTable<KubernetesObject> => {
          if ('set' in op) {
            model.set(op.set, op.v);
            return t.set(op.set, obj(op.set, op.v));
          }
          if ('del' in op) {
            model.delete(op.del);
            return t.delete(op.del);
          }
          let m = t.asMutable();
          for (const inner of op.batch) m = apply(m, inner);
          return m.asImmutable();
        };
        for (const op of ops) {
          table = apply(table, op);
          const expected = [...model]
            .map(([k, v]): [string, string | undefined] => [k, String(v)])
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
          expect(table.size).to.equal(model.size);
          expect(contentOf(table)).to.deep.equal(expected);
          for (const [name, v] of model) expect(table.get(name)?.metadata?.resourceVersion).to.equal(String(v));
          expect(table.get('absent-name')).to.equal(undefined);
          versions.push([table, expected]);
        }
        for (const [t, expected] of versions) expect(contentOf(t)).to.deep.equal(expected);
      }),
      { numRuns: 200 },
    );
  });
});
