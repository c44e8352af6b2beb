import { expect } from 'chai';
import { UpdateControl, type KubernetesObject } from '@kindex/core';
import { catchInvalidOption } from '@kindex/testing/internal';
import { Kinds, KubeconfigSecretProvider, Operator, type FleetReconciler, type KubeconfigSecretProviderOptions } from '../index.js';
import { offlineKubeConfig } from '../testing-fixtures/offline-kube-config.js';

// The fleet's options are declared once (defineOptions): a bad value is refused where it is given,
// before any cluster is read, with one line naming the object, the key and the fix.

describe('fleet options, declared once', () => {
  it('refuses a KubeconfigSecretProvider without a namespace, or with a key that is not a string', async () => {
    const missing = await catchInvalidOption(() => new KubeconfigSecretProvider({} as KubeconfigSecretProviderOptions));
    expect(missing.code).to.equal('KINDEX_INVALID_OPTION');
    expect(missing.message).to.equal(
      'KubeconfigSecretProvider options.namespace = undefined: missing, and required. Fix: set namespace to the namespace of the kubeconfig Secrets',
    );
    expect((await catchInvalidOption(() => new KubeconfigSecretProvider({ namespace: '' }))).key).to.equal('namespace');
    const key = await catchInvalidOption(
      () => new KubeconfigSecretProvider({ namespace: 'fleet', key: 3 } as unknown as KubeconfigSecretProviderOptions),
    );
    expect(key.fix).to.equal('set key to the data key holding the kubeconfig, or leave it out for the default');
  });

  it('refuses an engageRetryMs that is not a positive number, naming the fleet', async () => {
    const operator = new Operator({ kubeConfig: offlineKubeConfig(), logger: 'silent' });
    const reconciler: FleetReconciler<KubernetesObject> = { reconcile: () => UpdateControl.noUpdate() };
    const clusters = new KubeconfigSecretProvider({ namespace: 'fleet' });
    const error = await catchInvalidOption(() =>
      operator.registerFleet(reconciler, { kind: Kinds.ConfigMap, name: 'maps', clusters, engageRetryMs: 0 }),
    );
    expect(error.message).to.equal(
      'fleet controller maps options.engageRetryMs = 0: must be > 0. Fix: set engageRetryMs to a positive number of milliseconds, or leave it out for the default',
    );
    operator.registerFleet(reconciler, { kind: Kinds.ConfigMap, name: 'maps', clusters, engageRetryMs: 1_000 });
  });
});
