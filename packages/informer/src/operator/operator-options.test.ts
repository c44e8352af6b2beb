import { expect } from 'chai';
import { InvalidOptionError, UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { catchInvalidOption } from '@kindex/testing/internal';
import {
  ControllerDistributionError,
  Kinds,
  Operator,
  runOperator,
  type KubeClient,
  type OperatorDefinition,
  type OperatorRunOptions,
  type RbacListingOptions,
} from '../index.js';
import { offlineKubeConfig } from '../testing-fixtures/offline-kube-config.js';

// The operator's run, runOperator and rbacManifest options are declared once (defineOptions): a
// value of the wrong type is refused before anything runs, with one line naming the key and the fix.

describe('operator options, declared once', () => {
  const kubeConfig = offlineKubeConfig();
  const operator = (): Operator => new Operator({ kubeConfig, logger: 'silent' });

  it('refuses Operator.run options of the wrong type before the process logic starts', async () => {
    const error = await catchInvalidOption(() => operator().run({ gracefulShutdownTimeoutMs: -1 }));
    expect(error.message).to.equal(
      'Operator.run options.gracefulShutdownTimeoutMs = -1: must be >= 0. Fix: set gracefulShutdownTimeoutMs to a number of milliseconds, 0 or more, or leave it out for the default',
    );
    expect((await catchInvalidOption(() => operator().run({ signals: 'SIGTERM' } as unknown as OperatorRunOptions))).key).to.equal(
      'signals',
    );
  });

  it('refuses runOperator options before the definition creates anything', async () => {
    let created = false;
    const definition: OperatorDefinition = { name: 'w', create: () => ((created = true), operator()) };
    const error = await catchInvalidOption(() => runOperator(definition, { kubeConfig, namespace: '', exit: false }));
    expect([error.options, error.key]).to.deep.equal(['runOperator options', 'namespace']);
    expect(created).to.equal(false);
  });

  it('refuses rbacManifest options of the wrong type, naming Operator.rbacManifest', async () => {
    const error = await catchInvalidOption(() => operator().rbacManifest({ events: 'no' } as unknown as RbacListingOptions));
    expect(error.message).to.equal(
      'Operator.rbacManifest options.events = "no": must be boolean. Fix: set events to true or false, or leave it out for the default',
    );
  });

  it('makes ControllerDistributionError a kind of InvalidOptionError, naming the controller and the key', () => {
    const noop: Reconciler<KubernetesObject, KubeClient> = { reconcile: () => UpdateControl.noUpdate() };
    try {
      operator().register(noop, { kind: Kinds.ConfigMap, name: 'maps', distribution: 'sharded' });
      expect.fail('expected a ControllerDistributionError');
    } catch (error) {
      expect(error).to.be.instanceOf(ControllerDistributionError).and.to.be.instanceOf(InvalidOptionError);
      const distribution = error as ControllerDistributionError;
      expect([distribution.code, distribution.options, distribution.key, distribution.value]).to.deep.equal([
        'KINDEX_INVALID_OPTION',
        'controller maps options',
        'distribution',
        'sharded',
      ]);
    }
  });
});
