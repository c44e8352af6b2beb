import { expect } from 'chai';
import { DeleteControl, ErrorStatusUpdateControl, UpdateControl, type KubernetesObject } from '../index.js';

const job: KubernetesObject = { metadata: { name: 'j', namespace: 'ns' } };

describe('UpdateControl', () => {
  it('carries the requeue priority asked with rescheduleAfter, and none by default', () => {
    const control = UpdateControl.patchStatus(job).rescheduleAfter(1000, { priority: -100 });
    expect([control.scheduleDelayMs, control.schedulePriority, control.kind]).to.deep.equal([1000, -100, 'patchStatus']);
    expect(UpdateControl.noUpdate().rescheduleAfter(5).schedulePriority).to.equal(undefined);
  });

  it('refuses a requeue priority that is not a finite number, saying what to pass', () => {
    expect(() => UpdateControl.noUpdate().rescheduleAfter(5, { priority: Number.NaN })).to.throw(
      RangeError,
      'rescheduleAfter: options.priority must be a finite number (higher is reconciled first; omit it to keep the current priority), got NaN',
    );
  });

  it('says which parts to patch', () => {
    expect(
      [
        UpdateControl.noUpdate(),
        UpdateControl.patchResource(job),
        UpdateControl.patchStatus(job),
        UpdateControl.patchResourceAndStatus(job),
      ].map((c) => [c.kind, c.isPatchResource, c.isPatchStatus]),
    ).to.deep.equal([
      ['noUpdate', false, false],
      ['patchResource', true, false],
      ['patchStatus', false, true],
      ['patchResourceAndStatus', true, true],
    ]);
  });

  it('adds a reschedule without changing the original', () => {
    const base = UpdateControl.patchStatus(job);
    const later = base.rescheduleAfter(1000);
    expect(later.scheduleDelayMs).to.equal(1000);
    expect(later.resource).to.equal(job);
    expect(base.scheduleDelayMs).to.equal(undefined);
    expect(Object.isFrozen(later)).to.equal(true);
  });

  it('rejects a missing resource and a negative or non-finite delay', () => {
    expect(() => UpdateControl.patchStatus(undefined as unknown as KubernetesObject)).to.throw(TypeError, 'patchStatus');
    expect(() => UpdateControl.noUpdate().rescheduleAfter(-1)).to.throw(RangeError);
    expect(() => UpdateControl.noUpdate().rescheduleAfter(Number.NaN)).to.throw(RangeError);
  });
});

describe('DeleteControl', () => {
  it('removes the finalizer by default and keeps it with noFinalizerRemoval', () => {
    expect(DeleteControl.defaultDelete().removeFinalizer).to.equal(true);
    const keep = DeleteControl.noFinalizerRemoval().rescheduleAfter(500);
    expect([keep.removeFinalizer, keep.scheduleDelayMs]).to.deep.equal([false, 500]);
  });

  it('refuses to reschedule a finalizer removal', () => {
    expect(() => DeleteControl.defaultDelete().rescheduleAfter(10)).to.throw(TypeError, 'noFinalizerRemoval');
  });
});

describe('ErrorStatusUpdateControl', () => {
  it('carries the status to write, or nothing', () => {
    expect(ErrorStatusUpdateControl.patchStatus(job).resource).to.equal(job);
    expect(ErrorStatusUpdateControl.noStatusUpdate().resource).to.equal(undefined);
    expect(() => ErrorStatusUpdateControl.patchStatus(null as unknown as KubernetesObject)).to.throw(TypeError);
  });
});
