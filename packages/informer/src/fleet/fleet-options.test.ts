import { expect } from 'chai';
import { InvalidOptionError, UpdateControl, type KubernetesObject } from '@kindex/core';
import { KubeConfig } from '@kubernetes/client-node';
import { Kinds, KubeconfigSecretProvider, Operator, type FleetReconciler, type KubeconfigSecretProviderOptions } from '../index.js';

// The fleet's options are declared once (defineOptions): a bad value is refused where it is given,
// before any cluster is read, with one line naming the object, the key and the fix.

function invalid(attempt: () => unknown): InvalidOptionError {
  try {
    attempt();
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidOptionError);
    return error as InvalidOptionError;
  }
  expect.fail('expected an InvalidOptionError: the bad value was taken');
}

function offlineKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kubeConfig;
}

describe('fleet options, declared once', () => {
  it('refuses a KubeconfigSecretProvider without a namespace, or with a key that is not a string', () => {
    const missing = invalid(() => new KubeconfigSecretProvider({} as KubeconfigSecretProviderOptions));
    expect(missing.code).to.equal('KINDEX_INVALID_OPTION');
    expect(missing.message).to.equal(
      'KubeconfigSecretProvider options.namespace = undefined: missing, and required. Fix: set namespace to the namespace of the kubeconfig Secrets',
    );
    expect(invalid(() => new KubeconfigSecretProvider({ namespace: '' })).key).to.equal('namespace');
    const key = invalid(() => new KubeconfigSecretProvider({ namespace: 'fleet', key: 3 } as unknown as KubeconfigSecretProviderOptions));
    expect(key.fix).to.equal('set key to the data key holding the kubeconfig, or leave it out for the default');
  });

  it('refuses an engageRetryMs that is not a positive number, naming the fleet', () => {
    const operator = new Operator({ kubeConfig: offlineKubeConfig(), logger: 'silent' });
    const reconciler: FleetReconciler<KubernetesObject> = { reconcile: () => UpdateControl.noUpdate() };
    const clusters = new KubeconfigSecretProvider({ namespace: 'fleet' });
    const error = invalid(() => operator.registerFleet(reconciler, { kind: Kinds.ConfigMap, name: 'maps', clusters, engageRetryMs: 0 }));
    expect(error.message).to.equal(
      'fleet controller maps options.engageRetryMs = 0: must be > 0. Fix: set engageRetryMs to a positive number of milliseconds, or leave it out for the default',
    );
    operator.registerFleet(reconciler, { kind: Kinds.ConfigMap, name: 'maps', clusters, engageRetryMs: 1_000 });
  });
});
