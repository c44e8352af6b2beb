import { expect } from 'chai';
import fc from 'fast-check';
import { fnv1a64Hex } from '../internal.js';

// The textbook definition on BigInt: slow, obviously right, the oracle for the fast one.
function reference(value: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(value)) {
    h ^= BigInt(byte);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

describe('fnv1a64Hex', () => {
  it("matches Go's hash/fnv New64a (vectors printed by go1.26 with %016x)", () => {
    const vectors: Record<string, string> = {
      '': 'cbf29ce484222325',
      a: 'af63dc4c8601ec8c',
      ab: '089c4407b545986a',
      abc: 'e71fa2190541574b',
      default: 'ebada5168620c5fe',
      'kube-system': 'df65c7bc1d82b35e',
      'test-uid-123': 'd0ba679834556c0b',
      'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee': '93754b7248a00eb9',
      '2a9c1b7e-0001-4f3a-9c1d-000000000001': 'b38d3e101723eca8',
      héllo: 'a35ff71f960240e0',
      日本: '121d7e35a6d3ce91',
    };
    for (const [input, hash] of Object.entries(vectors)) expect(fnv1a64Hex(input), JSON.stringify(input)).to.equal(hash);
  });

  it('agrees with the BigInt definition on any string, ASCII or not', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.uuid()), (s) => {
        expect(fnv1a64Hex(s)).to.equal(reference(s));
      }),
      { numRuns: 2000 },
    );
  });
});
