import { expect } from 'chai';
import fc from 'fast-check';
import { InvalidSelectorError, ShardSelector, type ShardField } from '../index.js';
import { fnv1a64Hex, SHARD_SPACE_END, shardIndexOf } from '../internal.js';

const UID_HALF = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";

function parseError(text: string): InvalidSelectorError {
  try {
    ShardSelector.parse(text);
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidSelectorError);
    return error as InvalidSelectorError;
  }
  expect.fail(`${text} parsed`);
}

describe('ShardSelector', () => {
  it('parses and formats the server syntax, ranges joined by ||', () => {
    const s = ShardSelector.parse(UID_HALF);
    expect(s.field).to.equal('object.metadata.uid');
    expect(s.ranges).to.deep.equal([{ start: '0x0000000000000000', end: '0x8000000000000000' }]);
    expect(s.toString()).to.equal(UID_HALF);
    const two = ShardSelector.parse(
      `( shardRange(object.metadata.namespace,"0xc000000000000000",'${SHARD_SPACE_END}') ) ||shardRange(object.metadata.namespace, '0x0000000000000000', '0x4000000000000000')`,
    );
    expect(two.ranges.map((r) => r.start)).to.deep.equal(['0x0000000000000000', '0xc000000000000000']);
    expect(ShardSelector.parse(two.toString()).equals(two)).to.equal(true);
  });

  it('merges adjacent ranges', () => {
    const s = ShardSelector.forShards('object.metadata.uid', [2, 0, 1], 4);
    expect(s.ranges).to.deep.equal([{ start: '0x0000000000000000', end: '0xc000000000000000' }]);
    expect(s.equals(ShardSelector.parse("shardRange(object.metadata.uid, '0x0000000000000000', '0xc000000000000000')"))).to.equal(true);
  });

  it('splits the hash space as the KEP examples do', () => {
    expect(ShardSelector.split('object.metadata.uid', 4).map(String)).to.deep.equal([
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')",
      "shardRange(object.metadata.uid, '0x4000000000000000', '0x8000000000000000')",
      "shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000')",
      "shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')",
    ]);
    expect(ShardSelector.split('object.metadata.uid', 3)[1]!.ranges[0]).to.deep.equal({
      start: '0x5555555555555555',
      end: '0xaaaaaaaaaaaaaaaa',
    });
  });

  it('matches by the hash of the field, a missing field hashing as the empty string', () => {
    // fnv1a64('default') = 0xebada5168620c5fe: in the upper half.
    const [low, high] = ShardSelector.split('object.metadata.namespace', 2) as [ShardSelector, ShardSelector];
    expect(high.matches({ metadata: { namespace: 'default' } })).to.equal(true);
    expect(low.matches({ metadata: { namespace: 'default' } })).to.equal(false);
    // '' hashes to 0xcbf29ce484222325, also upper half.
    expect(high.matches({ metadata: {} })).to.equal(true);
    expect(high.matches({})).to.equal(true);
    const exact = ShardSelector.of('object.metadata.uid', [{ start: '0xd0ba679834556c0b', end: '0xd0ba679834556c0c' }]);
    expect(exact.matches({ metadata: { uid: 'test-uid-123' } })).to.equal(true);
    expect(
      ShardSelector.of('object.metadata.uid', [{ start: '0x0000000000000000', end: '0xd0ba679834556c0b' }]).matches({
        metadata: { uid: 'test-uid-123' },
      }),
    ).to.equal(false);
  });

  it('rejects bad selectors with the server wording, naming the part', () => {
    const cases: [string, string, RegExp][] = [
      ['', 'expression', /empty shard selector is not allowed/],
      [
        "shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')",
        'fieldPath',
        /unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace/,
      ],
      [
        "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",
        'hexStart',
        /hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" \(did you mean "0x0000000000000000"\?\)/,
      ],
      ["shardRange(object.metadata.uid, '0000000000000000', '0x8000000000000000')", 'hexStart', /hexStart must have '0x' prefix/],
      ["shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000ABC')", 'hexEnd', /hexEnd: invalid hex character "A"/],
      [
        "shardRange(object.metadata.uid, '0x0000000000000000', '0x20000000000000000')",
        'hexEnd',
        /17-digit hex value must be '0x10000000000000000'/,
      ],
      [
        "shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')",
        'hexStart',
        /start 0x8000000000000000 must be less than end 0x8000000000000000/,
      ],
      ["shardRange(object.metadata.uid, '0x0000000000000000')", 'expression', /requires exactly 3 arguments, got 2/],
      ["hash(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')", 'expression', /unsupported function "hash"/],
      [`${UID_HALF} && ${UID_HALF}`, 'expression', /unexpected character "&"/],
      [
        `${UID_HALF} || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')`,
        'fieldPath',
        /all shard ranges must use the same field/,
      ],
      ["shardRange(object.metadata.uid, 0, '0x8000000000000000')", 'expression', /unexpected character "0"/],
    ];
    for (const [text, field, message] of cases) {
      const error = parseError(text);
      expect(error.message, text).to.match(message);
      expect(error.field, text).to.equal(field);
      expect(error.selector).to.equal(text);
    }
  });

  it('rejects bad shard counts and indices', () => {
    expect(() => ShardSelector.split('object.metadata.uid', 0)).to.throw(RangeError, /shard count/);
    expect(() => ShardSelector.forShards('object.metadata.uid', [4], 4)).to.throw(RangeError, /shard index 4 is outside \[0, 4\)/);
    expect(() => ShardSelector.of('metadata.uid' as ShardField, [])).to.throw(InvalidSelectorError, /unsupported field path/);
  });

  describe('properties', () => {
    const field = fc.constantFrom<ShardField>('object.metadata.uid', 'object.metadata.namespace');
    const object = fc.record({ metadata: fc.record({ uid: fc.uuid(), namespace: fc.stringMatching(/^[a-z0-9-]{1,20}$/) }) });

    it('N shards partition every object: exactly one matches, and shardIndexOf names it', () => {
      fc.assert(
        fc.property(field, fc.integer({ min: 1, max: 17 }), fc.array(object, { maxLength: 30 }), (f, n, objects) => {
          const shards = ShardSelector.split(f, n);
          for (const o of objects) {
            const matching = shards.flatMap((s, i) => (s.matches(o) ? [i] : []));
            expect(matching).to.deep.equal([shardIndexOf(f, o, n)]);
          }
        }),
      );
    });

    it('a selector of several shards matches the union of theirs, and survives format/parse', () => {
      fc.assert(
        fc.property(
          field,
          fc.integer({ min: 1, max: 12 }),
          fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
          fc.array(object, { maxLength: 20 }),
          (f, n, picks, objects) => {
            const indices = picks.map((p) => p % n);
            const combined = ShardSelector.forShards(f, indices, n);
            const reparsed = ShardSelector.parse(combined.toString());
            expect(reparsed.equals(combined)).to.equal(true);
            const singles = ShardSelector.split(f, n);
            for (const o of objects) {
              const expected = indices.some((i) => singles[i]!.matches(o));
              expect(combined.matches(o)).to.equal(expected);
              expect(reparsed.matches(o)).to.equal(expected);
            }
          },
        ),
      );
    });

    it('matches numerically: a range matches a hash exactly when start <= hash < end', () => {
      const bound = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
      fc.assert(
        fc.property(bound, bound, fc.string(), (a, b, value) => {
          fc.pre(a !== b);
          const [lo, hi] = a < b ? [a, b] : [b, a];
          const hex = (v: bigint): string => '0x' + v.toString(16).padStart(16, '0');
          const s = ShardSelector.of('object.metadata.uid', [{ start: hex(lo), end: hex(hi) }]);
          const h = BigInt('0x' + fnv1a64Hex(value));
          expect(s.matches({ metadata: { uid: value } })).to.equal(h >= lo && h < hi);
        }),
      );
    });
  });
});
