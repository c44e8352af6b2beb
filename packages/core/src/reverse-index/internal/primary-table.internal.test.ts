import { expect } from 'chai';
import fc from 'fast-check';
import { ResourceID } from '../../resource/resource-id.js';
import type { PrimaryEntry } from './index-content.js';
import { PrimaryTable } from './primary-table.js';

const entryOf = (id: ResourceID): PrimaryEntry => ({ id, alone: [id], secondaries: [] });

// Names and namespaces with and without `/` (Kubernetes has none; ResourceID accepts them), so
// two IDs built differently can share a key: `a/b` is both name `b` in `a` and cluster-scoped `a/b`.
const partArb = fc.constantFrom('a', 'b', 'a/b', 'b/a');
const idArb = fc.tuple(partArb, fc.option(partArb, { nil: undefined })).map(([name, namespace]) => ResourceID.of(name, namespace));

describe('PrimaryTable', () => {
  it('finds an entry by its ID and by its key string', () => {
    const table = new PrimaryTable();
    const id = ResourceID.of('web', 'shop');
    const entry = entryOf(id);
    table.add(entry);
    expect(table.get('shop/web')).to.equal(entry);
    expect(table.getOf(ResourceID.of('web', 'shop'))).to.equal(entry);
    expect(table.get('web')).to.equal(undefined);
    expect(table.size).to.equal(1);
    table.delete(ResourceID.parse('shop/web'));
    expect(table.get('shop/web')).to.equal(undefined);
    expect(table.size).to.equal(0);
  });

  it('answers as a Map keyed by id.key under any sequence of adds, deletes and clears (property)', () => {
    type Op = { kind: 'add' | 'delete'; id: ResourceID } | { kind: 'clear' };
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      { weight: 5, arbitrary: idArb.map((id): Op => ({ kind: 'add', id })) },
      { weight: 3, arbitrary: idArb.map((id): Op => ({ kind: 'delete', id })) },
      { weight: 1, arbitrary: fc.constant<Op>({ kind: 'clear' }) },
    );
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 30 }), fc.array(idArb, { minLength: 1, maxLength: 8 }), (ops, probes) => {
        const table = new PrimaryTable();
        const model = new Map<string, PrimaryEntry>();
        for (const op of ops) {
          if (op.kind === 'clear') {
            table.clear();
            model.clear();
          } else if (op.kind === 'delete') {
            table.delete(op.id);
            model.delete(op.id.key);
          } else if (!model.has(op.id.key)) {
            // add's contract: a primary not in the table (the index checks with getOf first).
            expect(table.getOf(op.id)).to.equal(undefined);
            const entry = entryOf(op.id);
            table.add(entry);
            model.set(op.id.key, entry);
          }
          expect(table.size).to.equal(model.size);
        }
        for (const id of probes) {
          expect(table.getOf(id)).to.equal(model.get(id.key));
          expect(table.get(id.key)).to.equal(model.get(id.key));
        }
      }),
    );
  });
});
