import { expect } from 'chai';
import fc from 'fast-check';
import { InvalidSelectorError, ShardMap, ShardSelector } from '../index.js';
import { SHARD_SPACE_END, fnv1a64Hex } from '../internal.js';

const NS = 'object.metadata.namespace' as const;
const TWO_64 = 1n << 64n;

/** Sequential names as people make them: a prefix, a counter (padded or not), a suffix. */
const sequentialNames: fc.Arbitrary<string[]> = fc
  .record({
    prefix: fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/),
    suffix: fc.stringMatching(/^(-[a-z0-9]{1,4})?$/),
    from: fc.nat({ max: 500 }),
    count: fc.integer({ min: 1, max: 400 }),
    pad: fc.integer({ min: 0, max: 4 }),
  })
  .map(({ prefix, suffix, from, count, pad }) =>
    Array.from({ length: count }, (_, i) => `${prefix}${String(from + i).padStart(pad, '0')}${suffix}`),
  );
const randomNames: fc.Arbitrary<string[]> = fc.uniqueArray(fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/), {
  minLength: 0,
  maxLength: 400,
});
const nameSets = fc.oneof(sequentialNames, randomNames);

/** Every hash in [0, 2^64) has exactly one shard: the segments tile the space, and each shard's selector takes exactly its segments. */
function expectExactCover(map: ShardMap): void {
  let at = 0n;
  for (const s of map.segments) {
    expect(BigInt(s.start), `segment at ${s.start}`).to.equal(at);
    at = BigInt(s.end);
    expect(at > BigInt(s.start)).to.equal(true);
  }
  expect(at).to.equal(TWO_64);
  // The shard selectors, parsed back as the server would, partition the space too.
  const selectors = Array.from({ length: map.shards }, (_, i) => ShardSelector.parse(map.selectorFor([i]).toString()));
  const probes = map.segments.flatMap((s) => {
    const start = BigInt(s.start);
    const last = BigInt(s.end) - 1n;
    return [start, last, (start + last) / 2n];
  });
  for (const p of probes) {
    const hash = p.toString(16).padStart(16, '0');
    const matching = selectors.flatMap((sel, i) => (sel.matchesHash(hash) ? [i] : []));
    expect(matching, `hash ${hash}`).to.deep.equal([map.shardOfHash(hash)]);
  }
}

describe('ShardMap', () => {
  it('puts 30 sequential namespace names on 6 shards 5 each, where equal slices put them in one or two', () => {
    const team = Array.from({ length: 30 }, (_, i) => `team-${i + 1}`);
    const acc = Array.from({ length: 30 }, (_, i) => `acc-sh-${String(i).padStart(2, '0')}`);
    expect(ShardMap.equal(NS, 6).loads(team)).to.deep.equal([0, 21, 0, 0, 0, 9]);
    expect(ShardMap.equal(NS, 6).loads(acc)).to.deep.equal([0, 0, 0, 30, 0, 0]);
    expect(ShardMap.balanced(NS, 6, team, 1).loads(team)).to.deep.equal([5, 5, 5, 5, 5, 5]);
    expect(ShardMap.balanced(NS, 6, acc, 1).loads(acc)).to.deep.equal([5, 5, 5, 5, 5, 5]);
  });

  it('for random and sequential name sets: every shard holds floor(n/shards) or ceil(n/shards) names, and the selectors cover the hash space exactly once', () => {
    fc.assert(
      fc.property(nameSets, fc.integer({ min: 1, max: 64 }), (names, shards) => {
        const distinct = new Set(names.map((n) => fnv1a64Hex(n)));
        fc.pre(distinct.size === new Set(names).size);
        const map = ShardMap.balanced(NS, shards, names, 7);
        const n = distinct.size;
        const loads = map.loads(names);
        expect(loads.reduce((a, b) => a + b, 0)).to.equal(n);
        for (const load of loads) expect(load, `loads ${loads.join(',')}`).to.be.within(Math.floor(n / shards), Math.ceil(n / shards));
        // The target follows whenever there are at least 2 names per shard: ceil(n/s) < n/s + 1 <= 1.5·n/s.
        if (n >= 2 * shards) expect(Math.max(...loads)).to.be.at.most((1.5 * n) / shards);
        expect(map.needsRebalance(names), 'a fresh map is within the hysteresis bound').to.equal(false);
        expectExactCover(map);
        expect(ShardMap.parse(map.serialize()).sameCuts(map)).to.equal(true);
      }),
      { numRuns: 300 },
    );
  });

  it('equal() cuts exactly where ShardSelector.split does', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.string(), (shards, value) => {
        const map = ShardMap.equal(NS, shards);
        const split = ShardSelector.split(NS, shards);
        expect(map.segments.map((s) => ({ start: s.start, end: s.end }))).to.deep.equal(split.map((s) => s.ranges[0]));
        expect(split[map.shardOfValue(value)]!.matchesHash(fnv1a64Hex(value))).to.equal(true);
        expectExactCover(map);
      }),
    );
  });

  it('asks for a rebalance only once a shard passes max(ceil(n/s), floor(1.5·n/s)), not for each new name', () => {
    const names = Array.from({ length: 30 }, (_, i) => `team-${i + 1}`);
    const map = ShardMap.balanced(NS, 6, names, 1);
    expect(ShardMap.loadBound(30, 6)).to.equal(7);
    // One more name moves no range.
    expect(map.needsRebalance([...names, 'team-31'])).to.equal(false);
    // Names that all land in one shard pass the bound after a few.
    const more: string[] = [];
    for (let i = 0; more.length < 4; i++) if (map.shardOfValue(`x${i}`) === 0) more.push(`x${i}`);
    // 33 names: bound max(6, 8) = 8, and shard 0 holds 8.
    expect(map.loads([...names, ...more.slice(0, 3)])[0]).to.equal(8);
    expect(map.needsRebalance([...names, ...more.slice(0, 3)])).to.equal(false);
    // 34 names: bound 8, shard 0 holds 9.
    expect(map.needsRebalance([...names, ...more])).to.equal(true);
  });

  it('keeps shards selectable with fewer names than shards (a range one hash wide, no name)', () => {
    const map = ShardMap.balanced(NS, 6, ['only'], 1);
    expect(map.loads(['only']).sort()).to.deep.equal([0, 0, 0, 0, 0, 1]);
    expectExactCover(map);
    expectExactCover(ShardMap.balanced(NS, 3, [], 1));
  });

  it('rejects a map with a gap, an overlap, a shard without segment, or a bad field, naming the field', () => {
    const good = ShardMap.equal(NS, 2, 3);
    expect(ShardMap.parse(good.serialize()).epoch).to.equal(3);
    const broken = (patch: Record<string, unknown>): InvalidSelectorError => {
      try {
        ShardMap.parse(JSON.stringify({ ...(JSON.parse(good.serialize()) as object), ...patch }));
      } catch (error) {
        expect(error).to.be.instanceOf(InvalidSelectorError);
        return error as InvalidSelectorError;
      }
      throw new Error('accepted');
    };
    expect(broken({ starts: ['0x0000000000000000', '0x9000000000000000'], owners: [0] }).field).to.equal('owners');
    expect(broken({ starts: ['0x0000000000000001', '0x8000000000000000'] }).field).to.equal('segments[0].start');
    expect(broken({ owners: [0, 0] }).message).to.contain('shard 1 has no segment');
    expect(broken({ owners: [0, 2] }).field).to.equal('segments[1].shard');
    expect(broken({ field: 'object.metadata.name' }).field).to.equal('field');
    expect(broken({ format: 2 }).field).to.equal('format');
    expect(() => ShardMap.of(NS, 1, 0, [{ start: '0x0000000000000000', end: '0x8000000000000000', shard: 0 }])).to.throw(
      InvalidSelectorError,
      `must reach ${SHARD_SPACE_END}`,
    );
  });
});
