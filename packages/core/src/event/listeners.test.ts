import { expect } from 'chai';
import { Listeners } from '../internal.js';

describe('Listeners', () => {
  it('calls listeners in the order added, and a listener removed during an emission still gets that one', () => {
    const listeners = new Listeners<number, string>();
    const seen: string[] = [];
    let removeSecond: () => void = () => {};
    listeners.add((n, s) => {
      seen.push(`first ${n} ${s}`);
      removeSecond();
    });
    removeSecond = listeners.add((n) => seen.push(`second ${n}`));
    listeners.emit(1, 'a');
    listeners.emit(2, 'b');
    expect(seen).to.deep.equal(['first 1 a', 'second 1', 'first 2 b']);
  });

  it('offers the emissions as an Observable that stops on unsubscribe and completes with the listeners', () => {
    const listeners = new Listeners<number, number>();
    const sums: number[] = [];
    let completed = 0;
    const subscription = listeners.observe((a, b) => a + b).subscribe({ next: (v) => sums.push(v), complete: () => completed++ });
    listeners.emit(1, 2);
    const late = listeners.observe((a) => a).subscribe({ complete: () => completed++ });
    listeners.complete();
    listeners.emit(5, 5);
    expect(sums).to.deep.equal([3]);
    expect(completed).to.equal(2);
    subscription.unsubscribe();
    late.unsubscribe();
    listeners.observe((a) => a).subscribe({ complete: () => completed++ });
    expect(completed).to.equal(3);
  });

  it('says whether anyone listens, so a hop can skip building what nobody reads', () => {
    const listeners = new Listeners<number>();
    expect(listeners.listening).to.equal(false);
    const subscription = listeners.observe((n) => n).subscribe();
    expect(listeners.listening).to.equal(true);
    subscription.unsubscribe();
    expect(listeners.listening).to.equal(false);
    const remove = listeners.add(() => {});
    expect(listeners.listening).to.equal(true);
    remove();
    expect(listeners.listening).to.equal(false);
  });
});
