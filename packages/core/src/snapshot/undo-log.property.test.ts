import { expect } from 'chai';
import fc from 'fast-check';
import { ReleasedSnapshotError, UndoLog, UNRECORDED, type UndoView } from './undo-log.js';

/** A Map kept with an undo log, as the store and the reverse index keep theirs. */
class LoggedMap {
  readonly live = new Map<string, number>();
  readonly log = new UndoLog<string, number>();

  set(key: string, value: number): void {
    this.log.recordBeforeWrite(key, this.live.get(key));
    this.live.set(key, value);
  }

  delete(key: string): void {
    this.log.recordBeforeWrite(key, this.live.get(key));
    this.live.delete(key);
  }

  read(view: UndoView<string, number>, key: string): number | undefined {
    const then = view.valueAt(key);
    return then === UNRECORDED ? this.live.get(key) : then;
  }

  /** The whole content as the view sees it. */
  contentOf(view: UndoView<string, number>): Map<string, number> {
    const out = new Map(this.live);
    view.forEachChanged((key, then) => {
      if (then === undefined) out.delete(key);
      else out.set(key, then);
    });
    return out;
  }
}

type Op =
  { kind: 'set'; key: string; value: number } | { kind: 'delete'; key: string } | { kind: 'snapshot' } | { kind: 'release'; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), key: fc.constantFrom('a', 'b', 'c', 'd'), value: fc.integer({ min: 0, max: 5 }) }),
  fc.record({ kind: fc.constant('delete' as const), key: fc.constantFrom('a', 'b', 'c', 'd') }),
  fc.record({ kind: fc.constant('snapshot' as const) }),
  fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
);

describe('UndoLog (property)', () => {
  it('a held snapshot never changes, whatever is written and released around it', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
        const map = new LoggedMap();
        const held: Array<{ view: UndoView<string, number>; expected: Map<string, number> }> = [];
        for (const op of ops) {
          if (op.kind === 'set') map.set(op.key, op.value);
          else if (op.kind === 'delete') map.delete(op.key);
          else if (op.kind === 'snapshot') held.push({ view: map.log.open({}), expected: new Map(map.live) });
          else if (held.length > 0) held.splice(op.pick % held.length, 1)[0]!.view.release();
          for (const { view, expected } of held) {
            expect(map.contentOf(view)).to.deep.equal(expected);
            for (const key of ['a', 'b', 'c', 'd']) expect(map.read(view, key)).to.equal(expected.get(key));
          }
        }
        expect(map.log.openCount).to.equal(held.length);
      }),
      { numRuns: 500 },
    );
  });

  it('records nothing once every snapshot is released: later writes cost no copying', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const map = new LoggedMap();
        const held: Array<UndoView<string, number>> = [];
        for (const op of ops) {
          if (op.kind === 'set') map.set(op.key, op.value);
          else if (op.kind === 'delete') map.delete(op.key);
          else if (op.kind === 'snapshot') held.push(map.log.open({}));
        }
        for (const view of held) view.release();
        expect(map.log.recording).to.equal(false);
        expect(map.log.openCount).to.equal(0);
        const probe = map.log.open({});
        map.set('a', 9);
        map.set('b', 9);
        let changed = 0;
        probe.forEachChanged(() => changed++);
        expect(changed).to.equal(2); // only what was written after the probe opened
        probe.release();
      }),
    );
  });

  it('refuses reads through a released view, and release is idempotent', () => {
    const map = new LoggedMap();
    const view = map.log.open({});
    view.release();
    view.release();
    expect(map.log.openCount).to.equal(0);
    expect(() => view.valueAt('a')).to.throw(ReleasedSnapshotError);
  });

  it('shares one layer between snapshots taken with no write between them', () => {
    const map = new LoggedMap();
    const first = map.log.open({});
    const second = map.log.open({});
    map.set('a', 1);
    first.release();
    expect(map.read(second, 'a')).to.equal(undefined);
    second.release();
    expect(map.log.recording).to.equal(false);
  });
});
