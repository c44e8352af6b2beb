import { expect } from 'chai';
import type { KubeConfig } from '@kubernetes/client-node';
import { catchInvalidOption } from '@kindex/testing/internal';
import { Reflector, type ResourceType } from '../index.js';

const type: ResourceType = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true };

describe('Reflector options, declared once', () => {
  it('refuses a page size below 1 in one line naming the object, the key, the value and the fix', async () => {
    const error = await catchInvalidOption(() => new Reflector({ kubeConfig: {} as KubeConfig, type, pageSize: 0 }));
    expect(error.code).to.equal('KINDEX_INVALID_OPTION');
    expect([error.options, error.key, error.value]).to.deep.equal(['Reflector options', 'pageSize', 0]);
    expect(error.message).to.equal(
      'Reflector options.pageSize = 0: must be >= 1. Fix: set pageSize to a whole number of objects per list page, 1 or more, or leave it out for the default',
    );
  });

  it('refuses a fractional watch timeout and names a nested key of backoff by its path', async () => {
    expect((await catchInvalidOption(() => new Reflector({ kubeConfig: {} as KubeConfig, type, watchTimeoutSeconds: 1.5 }))).key).to.equal(
      'watchTimeoutSeconds',
    );
    const typo = await catchInvalidOption(() => new Reflector({ kubeConfig: {} as KubeConfig, type, backoff: { initalMs: 5 } as never }));
    expect(typo.message).to.contain('Reflector options.backoff.initalMs (did you mean "initialMs"?)');
  });
});
