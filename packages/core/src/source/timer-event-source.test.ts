import { expect } from 'chai';
import { FakeClock, ResourceID, TimerEventSource, type Trigger } from '../index.js';

function collect(source: TimerEventSource): Trigger[] {
  const seen: Trigger[] = [];
  source.triggers$.subscribe((t) => seen.push(t));
  return seen;
}

describe('TimerEventSource', () => {
  it('triggers a primary once after the delay', async () => {
    const clock = new FakeClock();
    const timers = new TimerEventSource({ clock });
    const seen = collect(timers);
    await timers.start();
    timers.scheduleOnce(ResourceID.of('a', 'ns'), 100);
    await clock.advance(99);
    expect(seen).to.have.length(0);
    await clock.advance(1);
    expect(seen.map((t) => t.primaryIds[0]?.key)).to.deep.equal(['ns/a']);
    expect(seen[0]?.cause).to.deep.equal({ type: 'timer' });
    await clock.advance(1000);
    expect(seen).to.have.length(1);
  });

  it('replaces the schedule of a primary scheduled again', async () => {
    const clock = new FakeClock();
    const timers = new TimerEventSource({ clock });
    const seen = collect(timers);
    await timers.start();
    timers.scheduleOnce({ metadata: { name: 'a', namespace: 'ns' } }, 100);
    timers.scheduleOnce(ResourceID.of('a', 'ns'), 300);
    expect(timers.scheduledAt('ns/a')).to.equal(300);
    await clock.advance(200);
    expect(seen).to.have.length(0);
    await clock.advance(100);
    expect(seen).to.have.length(1);
  });

  it('does not trigger a cancelled schedule', async () => {
    const clock = new FakeClock();
    const timers = new TimerEventSource({ clock });
    const seen = collect(timers);
    await timers.start();
    timers.scheduleOnce(ResourceID.of('a'), 100);
    expect(timers.cancel('a')).to.equal(true);
    await clock.advance(500);
    expect(seen).to.have.length(0);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('arms schedules made before start, and stop cancels them all', async () => {
    const clock = new FakeClock();
    const timers = new TimerEventSource({ clock });
    const seen = collect(timers);
    timers.scheduleOnce(ResourceID.of('early'), 10);
    timers.scheduleOnce(ResourceID.of('late'), 1000);
    await clock.advance(20);
    expect(seen).to.have.length(0);
    await timers.start();
    await clock.advance(1);
    expect(seen.map((t) => t.primaryIds[0]?.key)).to.deep.equal(['early']);
    await timers.stop();
    await clock.advance(2000);
    expect(seen).to.have.length(1);
  });
});
