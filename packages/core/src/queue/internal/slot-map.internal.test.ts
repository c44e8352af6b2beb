import { expect } from 'chai';
import fc from 'fast-check';
import { SlotMap } from './slot-map.js';

type Op = { op: 'set'; key: string; value: number } | { op: 'take' | 'delete' | 'has' | 'get'; key: string } | { op: 'clear' };

const key = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('set' as const), key, value: fc.integer() }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constantFrom('take' as const, 'delete' as const, 'has' as const, 'get' as const), key }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const) }) },
);

describe('SlotMap (properties)', () => {
  it('behaves as a Map of numbers, whichever entries sit in the arrays and which in the map', () => {
    fc.assert(
      // One to three entries in the arrays for six keys: entries spill to the map and come back.
      fc.property(fc.integer({ min: 1, max: 3 }), fc.array(op, { maxLength: 80 }), (inline, ops) => {
        const model = new Map<string, number>();
        const map = new SlotMap<string>(inline);
        for (const o of ops) {
          if (o.op === 'set') {
            model.set(o.key, o.value);
            map.set(o.key, o.value);
          } else if (o.op === 'take') {
            const value = model.get(o.key);
            model.delete(o.key);
            expect(map.take(o.key)).to.equal(value);
          } else if (o.op === 'delete') expect(map.delete(o.key)).to.equal(model.delete(o.key));
          else if (o.op === 'has') expect(map.has(o.key)).to.equal(model.has(o.key));
          else if (o.op === 'get') expect(map.get(o.key)).to.equal(model.get(o.key));
          else {
            model.clear();
            map.clear();
          }
          expect(map.size).to.equal(model.size);
          const values: number[] = [];
          map.forEachValue((v) => values.push(v));
          expect(values.sort((x, y) => x - y)).to.deep.equal([...model.values()].sort((x, y) => x - y));
        }
      }),
      { numRuns: 300 },
    );
  });
});
