import { expect } from 'chai';
import type { ReconcileCauses } from '@kindex/core';
import { namespaceAndName, ReconcileTrace } from './reconcile-trace.js';

const causes: ReconcileCauses = { triggers: 1, omitted: 0, causes: [] };

describe('ReconcileTrace', () => {
  it('gives one UUID to the log bindings and the record, and another to each reconcile', () => {
    const trace = new ReconcileTrace('shop/web', causes);
    const bindings = trace.logBindings();
    expect(bindings).to.deep.equal({ namespace: 'shop', name: 'web', reconcileID: trace.reconcileID });
    expect(trace.reconcileID).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(trace.record().reconcileID).to.equal(bindings['reconcileID']);
    expect(new ReconcileTrace('shop/web', causes).reconcileID, 'each reconcile its own id').not.to.equal(trace.reconcileID);
  });

  it('records the start as ISO 8601 of `started`, and the outcome once ended', () => {
    const trace = new ReconcileTrace('web', causes);
    const running = trace.record();
    expect(running).to.deep.equal({ reconcileID: trace.reconcileID, startedAt: new Date(trace.started).toISOString(), causes });
    const durationMs = trace.succeeded();
    expect(durationMs).to.be.at.least(0);
    expect(trace.record()).to.deep.equal({ ...running, result: 'success', durationMs });
    expect(running, 'a record handed out earlier is a copy: it does not change').not.to.have.property('result');
  });

  it('keeps the message of a failure, whatever was thrown', () => {
    const trace = new ReconcileTrace('shop/web', causes);
    const durationMs = trace.failed(new Error('boom'));
    expect(trace.record()).to.include({ result: 'error', durationMs, error: 'boom' });
    const odd = new ReconcileTrace('shop/web', causes);
    odd.failed(undefined);
    expect(odd.record()).to.include({ result: 'error', error: 'undefined' });
  });

  it('splits a primary key into the namespace and name log fields', () => {
    expect(namespaceAndName('shop/web')).to.deep.equal({ namespace: 'shop', name: 'web' });
    expect(namespaceAndName('cluster-wide')).to.deep.equal({ name: 'cluster-wide' });
  });
});
