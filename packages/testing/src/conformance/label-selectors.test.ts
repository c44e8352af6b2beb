import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { createConfigMap, useConformanceFixture } from './conformance-fixture.js';

describe('conformance: label selectors', () => {
  const fixture = useConformanceFixture();

  // a: env=prod,tier=web  b: env=dev,tier=web  c: env=prod  d: no labels
  beforeEach(async () => {
    const { core, namespace } = fixture();
    await createConfigMap(core, namespace, { name: 'a', labels: { env: 'prod', tier: 'web' } });
    await createConfigMap(core, namespace, { name: 'b', labels: { env: 'dev', tier: 'web' } });
    await createConfigMap(core, namespace, { name: 'c', labels: { env: 'prod' } });
    await createConfigMap(core, namespace, { name: 'd' });
  });

  async function select(labelSelector: string): Promise<string[]> {
    const { core, namespace } = fixture();
    const list = await core.listNamespacedConfigMap({ namespace, labelSelector });
    return list.items.map((i) => i.metadata!.name!).sort();
  }

  const cases: [string, string[]][] = [
    ['env=prod', ['a', 'c']],
    ['env==prod', ['a', 'c']],
    ['env!=prod', ['b', 'd']],
    ['env in (prod,dev)', ['a', 'b', 'c']],
    ['env in (dev)', ['b']],
    ['env notin (prod)', ['b', 'd']],
    ['tier', ['a', 'b']],
    ['!tier', ['c', 'd']],
    ['env=prod,tier=web', ['a']],
    ['env=prod,!tier', ['c']],
    ['env in (prod),tier notin (web)', ['c']],
    ['env=staging', []],
  ];
  for (const [selector, expected] of cases) {
    it(`'${selector}' selects ${expected.length === 0 ? 'nothing' : expected.join(', ')}`, async () => {
      expect(await select(selector)).to.deep.equal(expected);
    });
  }

  it('an empty selector selects everything', async () => {
    expect(await select('')).to.deep.equal(['a', 'b', 'c', 'd']);
  });

  it('selects across all namespaces', async () => {
    const { core, namespace } = fixture();
    const list = await core.listConfigMapForAllNamespaces({ labelSelector: 'env=prod,tier=web' });
    const keys = list.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`);
    expect(keys).to.include(`${namespace}/a`);
    expect(keys).to.not.include(`${namespace}/b`);
  });

  for (const invalid of ['env in prod', 'env=(prod', '=prod', 'env notin']) {
    it(`rejects the malformed selector '${invalid}' with 400 BadRequest`, async () => {
      const { core, namespace } = fixture();
      const status = await catchApiStatus(core.listNamespacedConfigMap({ namespace, labelSelector: invalid }));
      expect(status).to.include({ code: 400, reason: 'BadRequest' });
      expect(status.message).to.be.a('string').and.not.equal('');
    });
  }
});
