import { expect } from 'chai';
import fc from 'fast-check';
import { PrimaryToSecondaryIndex, ResourceID, withInputsEqual, type KubernetesObject, type ReverseIndexSnapshot } from '../index.js';

interface Secondary extends KubernetesObject {
  spec: { owners: string[]; data: number; broken: boolean };
}

/** The mapper: owners from the spec; throws when `broken` (the index must then keep the previous entries). */
const mapper = withInputsEqual(
  (s: Secondary) => {
    if (s.spec.broken) throw new Error('broken');
    return s.spec.owners.map((o) => ResourceID.of(o, 'ns'));
  },
  (a, b) => a.spec.broken === b.spec.broken && a.spec.owners.join() === b.spec.owners.join(),
);

const secondaryArb = fc.record({
  name: fc.constantFrom('s1', 's2', 's3', 's4'),
  // Duplicates allowed: the mapper's array goes to the index as it is, which must ignore them.
  owners: fc.array(fc.constantFrom('p1', 'p2', 'p3'), { maxLength: 4 }),
  data: fc.nat(3),
  broken: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
});

type Op =
  | { kind: 'upsert'; name: string; owners: string[]; data: number; broken: boolean }
  | { kind: 'delete'; name: string }
  | { kind: 'seed'; items: Array<{ name: string; owners: string[]; data: number; broken: boolean }> }
  | { kind: 'clear' }
  | { kind: 'snapshot' }
  | { kind: 'release' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: secondaryArb.map((s): Op => ({ kind: 'upsert', ...s })) },
  { weight: 2, arbitrary: fc.constantFrom('s1', 's2', 's3', 's4').map((name): Op => ({ kind: 'delete', name })) },
  { weight: 1, arbitrary: fc.array(secondaryArb, { maxLength: 4 }).map((items): Op => ({ kind: 'seed', items })) },
  { weight: 1, arbitrary: fc.constant<Op>({ kind: 'clear' }) },
  { weight: 2, arbitrary: fc.constant<Op>({ kind: 'snapshot' }) },
  { weight: 2, arbitrary: fc.constant<Op>({ kind: 'release' }) },
);

function secondary(s: { name: string; owners: string[]; data: number; broken: boolean }): Secondary {
  return { metadata: { name: s.name, namespace: 'ns' }, spec: { owners: s.owners, data: s.data, broken: s.broken } };
}

/** Everything a view shows, as sorted plain data. */
function describe_(view: Pick<ReverseIndexSnapshot, 'secondaryKeys' | 'primaryKeys'>): unknown {
  return {
    byPrimary: ['p1', 'p2', 'p3'].map((p) => [p, [...view.secondaryKeys(`ns/${p}`)].sort()]),
    bySecondary: ['s1', 's2', 's3', 's4'].map((s) => [s, [...view.primaryKeys(`ns/${s}`)].sort()]),
  };
}

describe('PrimaryToSecondaryIndex (properties)', () => {
  it('matches a naive model, P_new/P_old included, and keeps held snapshots unchanged', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const index = new PrimaryToSecondaryIndex<Secondary>({ toPrimaryIds: mapper });
        index.errors$.subscribe(() => undefined);
        const model = new Map<string, string[]>(); // secondary name -> owner names
        const current = new Map<string, Secondary>();
        const held: Array<[ReverseIndexSnapshot, unknown]> = [];
        for (const op of ops) {
          if (op.kind === 'upsert') {
            const next = secondary(op);
            const update = index.onAddOrUpdate(next, current.get(op.name));
            const before = model.get(op.name) ?? [];
            const after = op.broken ? before : [...new Set(op.owners)];
            expect(update.oldPrimaries.map((id) => id.name).sort()).to.deep.equal(op.broken ? [...before].sort() : [...before].sort());
            expect(update.newPrimaries.map((id) => id.name).sort()).to.deep.equal([...after].sort());
            if (after.length > 0) model.set(op.name, after);
            else model.delete(op.name);
            current.set(op.name, next);
          } else if (op.kind === 'delete') {
            const update = index.onDelete(ResourceID.of(op.name, 'ns'));
            expect(update.oldPrimaries.map((id) => id.name).sort()).to.deep.equal([...(model.get(op.name) ?? [])].sort());
            model.delete(op.name);
            current.delete(op.name);
          } else if (op.kind === 'seed') {
            const items = new Map(op.items.map((i) => [i.name, i]));
            index.seed([...items.values()].map(secondary));
            model.clear();
            current.clear();
            for (const item of items.values()) {
              current.set(item.name, secondary(item));
              if (!item.broken && item.owners.length > 0) model.set(item.name, [...new Set(item.owners)]);
            }
          } else if (op.kind === 'clear') {
            index.clear();
            model.clear();
            current.clear();
          } else if (op.kind === 'snapshot') {
            const snap = index.snapshot();
            held.push([snap, describe_(snap)]);
          } else if (held.length > 0) {
            held.shift()![0].release();
          }
          const expected = {
            byPrimary: ['p1', 'p2', 'p3'].map((p) => [
              p,
              [...model]
                .filter(([, owners]) => owners.includes(p))
                .map(([s]) => `ns/${s}`)
                .sort(),
            ]),
            bySecondary: ['s1', 's2', 's3', 's4'].map((s) => [s, (model.get(s) ?? []).map((o) => `ns/${o}`).sort()]),
          };
          expect(describe_(index)).to.deep.equal(expected);
          for (const [snap, seen] of held) expect(describe_(snap)).to.deep.equal(seen);
        }
        expect(index.openSnapshots).to.equal(held.length);
        for (const [snap] of held) snap.release();
        expect(index.openSnapshots).to.equal(0);
      }),
      { numRuns: 300 },
    );
  });

  it('secondariesOf answers the objects the store holds now, however many writes came between two reads', () => {
    type ReadOp = Op | { kind: 'read' };
    const readOpArb: fc.Arbitrary<ReadOp> = fc.oneof(
      { weight: 3, arbitrary: opArb },
      { weight: 2, arbitrary: fc.constant<ReadOp>({ kind: 'read' }) },
    );
    fc.assert(
      fc.property(fc.array(readOpArb, { maxLength: 40 }), (ops) => {
        const index = new PrimaryToSecondaryIndex<Secondary>({ toPrimaryIds: mapper });
        index.errors$.subscribe(() => undefined);
        // The store the index is fed from, written first as a cache is; the model of the index.
        const store = new Map<string, Secondary>();
        const model = new Map<string, string[]>();
        const check = (): void => {
          for (const p of ['p1', 'p2', 'p3']) {
            const answer = index.secondariesOf(`ns/${p}`);
            const expected = [...model].filter(([s, owners]) => owners.includes(p) && store.has(s)).map(([s]) => store.get(s)!);
            const byName = (a: Secondary, b: Secondary): number => a.metadata!.name!.localeCompare(b.metadata!.name!);
            // The very objects of the store (identity, not equal copies).
            expect(answer.sort(byName)).to.have.ordered.members(expected.sort(byName));
          }
        };
        for (const op of ops) {
          if (op.kind === 'upsert') {
            const next = secondary(op);
            const previous = store.get(op.name);
            store.set(op.name, next);
            index.onAddOrUpdate(next, previous);
            const before = model.get(op.name) ?? [];
            const after = op.broken ? before : [...new Set(op.owners)];
            if (after.length > 0) model.set(op.name, after);
            else model.delete(op.name);
          } else if (op.kind === 'delete') {
            store.delete(op.name);
            index.onDelete(ResourceID.of(op.name, 'ns'));
            model.delete(op.name);
          } else if (op.kind === 'seed') {
            store.clear();
            model.clear();
            for (const item of op.items) {
              store.set(item.name, secondary(item));
              if (item.broken || item.owners.length === 0) model.delete(item.name);
              else model.set(item.name, item.owners);
            }
            index.seed(store.values());
          } else if (op.kind === 'clear') {
            store.clear();
            model.clear();
            index.clear();
          } else if (op.kind === 'read') {
            check();
          }
        }
        check();
      }),
      { numRuns: 300 },
    );
  });

  it('does not call a mapper whose inputs did not change', () => {
    let calls = 0;
    const counted = withInputsEqual(
      (s: Secondary) => {
        calls++;
        return s.spec.owners.map((o) => ResourceID.of(o, 'ns'));
      },
      (a, b) => a.spec.owners.join() === b.spec.owners.join(),
    );
    const index = new PrimaryToSecondaryIndex<Secondary>({ toPrimaryIds: counted });
    const first = secondary({ name: 's1', owners: ['p1'], data: 0, broken: false });
    index.onAddOrUpdate(first);
    const second = secondary({ name: 's1', owners: ['p1'], data: 1, broken: false });
    const update = index.onAddOrUpdate(second, first);
    expect(calls).to.equal(1);
    expect(update.newPrimaries.map((id) => id.key)).to.deep.equal(['ns/p1']);
    index.onAddOrUpdate(secondary({ name: 's1', owners: ['p2'], data: 1, broken: false }), second);
    expect(calls).to.equal(2);
    expect([...index.secondaryKeys('ns/p2')]).to.deep.equal(['ns/s1']);
  });
});
