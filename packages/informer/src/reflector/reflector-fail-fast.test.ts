import { expect } from 'chai';
import { createNamespace, useTestApiServer } from '@kindex/testing';
import { KubeApiError, isNonTransient, Reflector } from '../index.js';
import type { ReflectorHealth, ResourceType } from '../index.js';

const missing: ResourceType = { group: 'nowhere.kindex.test', version: 'v1', plural: 'gadgets', kind: 'Gadget', namespaced: true };

describe('Reflector.waitForSync rejectOn', function () {
  this.timeout(30_000);
  const server = useTestApiServer();

  // By list the refused request is the list; by watch-list ('auto', the default) it is the watch.
  for (const [initialState, verb] of [
    ['list', 'list'],
    ['auto', 'watch'],
  ] as const) {
    it(`rejects with the 404 of a kind that is not served, while the reflector keeps retrying with backoff (initialState ${initialState}: the refused request is a ${verb})`, async () => {
      const namespace = await createNamespace(server().kubeConfig);
      const reflector = new Reflector({
        kubeConfig: server().kubeConfig,
        type: missing,
        namespace,
        initialState,
        backoff: { initialMs: 20, maxMs: 50 },
      });
      const health: ReflectorHealth[] = [];
      reflector.health$.subscribe((h) => health.push(h));
      try {
        await reflector.start();
        const error = await reflector.waitForSync({ rejectOn: isNonTransient }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).to.be.instanceOf(KubeApiError).and.include({ status: 404, verb });
        // Without rejectOn the same wait would go on: the reflector never stops by itself.
        expect(await reflector.waitForSync({ timeoutMs: 300 })).to.equal(false);
        expect(health.at(-1)!.restarts).to.be.greaterThan(1);
      } finally {
        await reflector.stop();
      }
    });
  }

  it('resolves true once synced when nothing is refused', async () => {
    const namespace = await createNamespace(server().kubeConfig);
    const configMaps: ResourceType = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true };
    const reflector = new Reflector({ kubeConfig: server().kubeConfig, type: configMaps, namespace });
    try {
      await reflector.start();
      expect(await reflector.waitForSync({ rejectOn: isNonTransient })).to.equal(true);
    } finally {
      await reflector.stop();
    }
  });
});
