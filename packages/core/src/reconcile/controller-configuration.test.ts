import { expect } from 'chai';
import { controllerConfiguration, GenericRetry, InvalidConfigurationError, TerminalError } from '../index.js';

describe('controllerConfiguration', () => {
  it('fills in the documented defaults', () => {
    const c = controllerConfiguration({ name: 'jobs', primaryType: 'example.com/v1/Job' });
    expect(c).to.include({
      namespaces: 'all',
      labelSelector: undefined,
      finalizerName: undefined,
      generationAware: true,
      concurrency: 10,
      maxReconciliationIntervalMs: 36_000_000,
      reconcileTimeoutMs: 300_000,
    });
    expect(c.retry).to.be.instanceOf(GenericRetry);
    expect((c.retry as GenericRetry).maxAttempts).to.equal(5);
    expect(c.rateLimiter.when('x')).to.equal(5);
  });

  it('turns the max reconciliation interval and timeout off with an explicit undefined', () => {
    const c = controllerConfiguration({
      name: 'j',
      primaryType: 'v1/ConfigMap',
      maxReconciliationIntervalMs: undefined,
      reconcileTimeoutMs: undefined,
    });
    expect(c.maxReconciliationIntervalMs).to.equal(undefined);
    expect(c.reconcileTimeoutMs).to.equal(undefined);
  });

  it('names the controller and the field of a bad value', () => {
    expect(() => controllerConfiguration({ name: 'jobs', primaryType: 'v1/Job', concurrency: 0 }))
      .to.throw(InvalidConfigurationError, 'controller jobs: concurrency')
      .with.property('field', 'concurrency');
    expect(() => controllerConfiguration({ name: 'jobs', primaryType: '' })).to.throw(InvalidConfigurationError, 'primaryType');
    expect(() => controllerConfiguration({ name: 'jobs', primaryType: 'v1/Job', namespaces: [''] })).to.throw(
      InvalidConfigurationError,
      'namespaces',
    );
    expect(() => controllerConfiguration({ name: 'jobs', primaryType: 'v1/Job', reconcileTimeoutMs: -5 })).to.throw(
      InvalidConfigurationError,
      'reconcileTimeoutMs',
    );
  });
});

describe('TerminalError', () => {
  it('carries the object key, field and cause', () => {
    const cause = new Error('root');
    const e = new TerminalError('is required', { objectKey: 'ns/j', field: 'spec.cluster', cause });
    expect(e.message).to.equal('object ns/j: spec.cluster: is required');
    expect([e.name, e.objectKey, e.field, e.cause]).to.deep.equal(['TerminalError', 'ns/j', 'spec.cluster', cause]);
  });
});
