// A controller's option values are checked where they are written: a wrong type is one
// InvalidOptionError naming the controller's options, the key, the value and the fix, before any
// cache or request exists.
import { expect } from 'chai';
import { catchInvalidOption } from '@kindex/testing/internal';
import { UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { Controller, Kinds, KubeClient } from '../index.js';
import { offlineKubeConfig } from '../testing-fixtures/offline-kube-config.js';

const client = new KubeClient(offlineKubeConfig());
const noop: Reconciler<KubernetesObject, KubeClient> = { reconcile: () => UpdateControl.noUpdate() };

describe('controller options', () => {
  it('refuses a value of the wrong type, naming the controller, the key, the value and the fix', async () => {
    const error = await catchInvalidOption(
      () => new Controller(noop, { kind: Kinds.ConfigMap, name: 'maps', primaryWrites: 'replace' } as never, client),
    );
    expect(error.code).to.equal('KINDEX_INVALID_OPTION');
    expect(error.message).to.contain('controller maps options.primaryWrites');
    expect(error.message).to.contain('"replace"');
    expect(error.message).to.contain("'patch' or 'apply'");
  });

  it('checks the nested reflector and cacheBound options by the same declaration', async () => {
    const pageSize = await catchInvalidOption(
      () => new Controller(noop, { kind: Kinds.ConfigMap, name: 'maps', reflector: { pageSize: 0 } }, client),
    );
    expect(pageSize.message).to.contain('controller maps options.reflector.pageSize');
    const generationAware = await catchInvalidOption(
      () => new Controller(noop, { kind: Kinds.ConfigMap, generationAware: 'yes' } as never, client),
    );
    expect(generationAware.message).to.contain('controller configmaps.core options.generationAware');
    const cacheBound = await catchInvalidOption(() => new Controller(noop, { kind: Kinds.ConfigMap, cacheBound: 5 } as never, client));
    expect(cacheBound.message).to.contain('controller configmaps.core options.cacheBound');
  });

  it('accepts every option written as documented', () => {
    const controller = new Controller(
      noop,
      {
        kind: Kinds.ConfigMap,
        name: 'maps',
        primaryWrites: 'apply',
        statusSubresource: false,
        labelSelector: 'app=web',
        reflector: { pageSize: 10 },
      },
      client,
    );
    expect(controller.name).to.equal('maps');
  });

  it('refuses a negative stop drain timeout before stopping anything', async () => {
    const controller = new Controller(noop, { kind: Kinds.ConfigMap, name: 'maps' }, client);
    const error = await catchInvalidOption(() => controller.stop({ drainTimeoutMs: -1 }));
    expect(error.message).to.contain('controller maps stop options.drainTimeoutMs');
  });
});
