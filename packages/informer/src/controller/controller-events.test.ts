import { expect } from 'chai';
import { ResourceID, type ProcessingEvent, type Trigger } from '@kindex/core';
import type { ControllerEvent, ControllerProblemEvent, ControllerReconciledEvent } from './controller-event.js';
import { ControllerEvents } from './controller-events.js';

const trigger: Trigger = { primaryIds: [ResourceID.of('web', 'shop')], source: 'primary', cause: { type: 'primary-deleted' } };
const started: ProcessingEvent = {
  type: 'started',
  key: 'shop/web',
  retryInfo: undefined,
  causes: { causes: [], triggers: 0, omitted: 0 },
};

describe('ControllerEvents', () => {
  it('hands processing steps and problems to direct listeners unwrapped, with nobody on events$', () => {
    const events = new ControllerEvents();
    const seen: unknown[] = [];
    events.onProcessing((e) => seen.push(e));
    events.onProblem((source, error) => seen.push([source, error]));
    events.trigger(trigger);
    events.processing(started);
    events.problem('pods', 'boom');
    events.reconciled('shop/web', 'noUpdate', []);
    expect(seen).to.deep.equal([started, ['pods', 'boom']]);
  });

  it('wraps every kind of event for events$ subscribers, in order, and completes them', () => {
    const events = new ControllerEvents();
    const seen: ControllerEvent[] = [];
    let completed = false;
    events.trigger(trigger); // before anyone subscribed: not replayed
    events.events$.subscribe({ next: (e) => seen.push(e), complete: () => (completed = true) });
    events.trigger(trigger);
    events.processing(started);
    events.problem('pods', 'boom');
    events.reconciled('shop/web', 'noUpdate', ['status']);
    events.complete();
    events.problem('pods', 'after');
    expect(seen).to.deep.equal([
      { type: 'trigger', trigger },
      { type: 'processing', event: started },
      { type: 'problem', source: 'pods', error: 'boom' },
      { type: 'reconciled', key: 'shop/web', control: 'noUpdate', wrote: ['status'] },
    ]);
    expect(completed).to.equal(true);
  });

  it('hands problems$ and reconciled$ subscribers their own events only, and completes them', () => {
    const events = new ControllerEvents();
    const problems: ControllerProblemEvent[] = [];
    const reconciles: ControllerReconciledEvent[] = [];
    let completed = 0;
    events.problems$.subscribe({ next: (p) => problems.push(p), complete: () => completed++ });
    events.reconciled$.subscribe({ next: (r) => reconciles.push(r), complete: () => completed++ });
    events.trigger(trigger);
    events.processing(started);
    events.problem('pods', 'boom');
    events.reconciled('shop/web', 'noUpdate', []);
    events.reconciled('shop/db', 'updateStatus', ['status']);
    events.complete();
    events.problem('pods', 'after');
    expect(problems).to.deep.equal([{ type: 'problem', source: 'pods', error: 'boom' }]);
    expect(reconciles).to.deep.equal([
      { type: 'reconciled', key: 'shop/web', control: 'noUpdate', wrote: [] },
      { type: 'reconciled', key: 'shop/db', control: 'updateStatus', wrote: ['status'] },
    ]);
    expect(completed).to.equal(2);
  });
});
