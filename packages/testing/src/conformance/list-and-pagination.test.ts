import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { createNamespace } from '../helpers/create-namespace.js';
import { eventually } from '../helpers/eventually.js';
import { createConfigMap, useConformanceFixture } from './conformance-fixture.js';

describe('conformance: list and pagination', () => {
  const fixture = useConformanceFixture();

  async function createMany(namespace: string, count: number): Promise<string[]> {
    const names: string[] = [];
    for (let i = 0; i < count; i++) {
      names.push((await createConfigMap(fixture().core, namespace, { name: `item-${i}` })).metadata!.name!);
    }
    return names;
  }

  it('lists the objects of one namespace only, with a list resourceVersion', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const other = await createNamespace(kubeConfig);
    const names = await createMany(namespace, 3);
    await createConfigMap(core, other);
    const list = await core.listNamespacedConfigMap({ namespace });
    expect(list.items.map((i) => i.metadata?.name)).to.have.members(names);
    expect(list.items.every((i) => i.metadata?.namespace === namespace)).to.equal(true);
    expect(list.metadata?.resourceVersion).to.be.a('string').and.not.equal('');
  });

  it('lists the objects of all namespaces', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const other = await createNamespace(kubeConfig);
    const a = await createConfigMap(core, namespace);
    const b = await createConfigMap(core, other);
    const list = await core.listConfigMapForAllNamespaces({});
    const keys = list.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`);
    expect(keys).to.include.members([`${namespace}/${a.metadata!.name}`, `${other}/${b.metadata!.name}`]);
  });

  it('lists cluster-scoped objects (namespaces)', async () => {
    const { core, namespace } = fixture();
    const list = await core.listNamespace({});
    expect(list.items.map((i) => i.metadata?.name)).to.include(namespace);
  });

  it('resourceVersion=0 (any version, possibly a little stale) comes to list the objects written before', async () => {
    const { core, namespace } = fixture();
    const names = await createMany(namespace, 2);
    // Served from a cache on a real server, so it may lag the writes for a moment.
    await eventually(async () => {
      const list = await core.listNamespacedConfigMap({ namespace, resourceVersion: '0' });
      expect(list.items.map((i) => i.metadata?.name)).to.have.members(names);
      expect(list.metadata?.resourceVersion).to.be.a('string').and.not.equal('');
    });
  });

  it('an empty namespace lists no items', async () => {
    const { core, namespace } = fixture();
    const list = await core.listNamespacedConfigMap({ namespace });
    expect(list.items).to.deep.equal([]);
  });

  it('limit and continue page through every object exactly once', async () => {
    const { core, namespace } = fixture();
    const names = await createMany(namespace, 7);
    const seen: string[] = [];
    const pageSizes: number[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNamespacedConfigMap({ namespace, limit: 3, _continue: token });
      pageSizes.push(page.items.length);
      seen.push(...page.items.map((i) => i.metadata!.name!));
      token = page.metadata?._continue || undefined;
      expect(++pages).to.be.at.most(10);
    } while (token !== undefined);
    expect(pageSizes).to.deep.equal([3, 3, 1]);
    expect(seen).to.have.length(7);
    expect(seen).to.have.members(names);
  });

  it('every page of one paginated list reports the same resourceVersion', async () => {
    const { core, namespace } = fixture();
    await createMany(namespace, 5);
    const first = await core.listNamespacedConfigMap({ namespace, limit: 2 });
    const second = await core.listNamespacedConfigMap({ namespace, limit: 2, _continue: first.metadata!._continue! });
    expect(second.metadata?.resourceVersion).to.equal(first.metadata?.resourceVersion);
  });

  it('later pages are a consistent snapshot: objects created mid-way do not appear', async () => {
    const { core, namespace } = fixture();
    const names = await createMany(namespace, 4);
    const first = await core.listNamespacedConfigMap({ namespace, limit: 2 });
    await createConfigMap(core, namespace, { name: 'item-9-late' });
    await createConfigMap(core, namespace, { name: 'a-late' });
    const rest = await core.listNamespacedConfigMap({ namespace, limit: 10, _continue: first.metadata!._continue! });
    const seen = [...first.items, ...rest.items].map((i) => i.metadata!.name!);
    expect(seen).to.have.members(names);
  });

  it('a limit at least the number of objects returns no continue token', async () => {
    const { core, namespace } = fixture();
    await createMany(namespace, 2);
    const page = await core.listNamespacedConfigMap({ namespace, limit: 2 });
    expect(page.items).to.have.length(2);
    expect(page.metadata?._continue ?? '').to.equal('');
  });

  it('a malformed continue token fails with 400 BadRequest', async () => {
    const { core, namespace } = fixture();
    await createMany(namespace, 1);
    const status = await catchApiStatus(core.listNamespacedConfigMap({ namespace, limit: 1, _continue: 'not-a-token' }));
    expect(status).to.include({ code: 400, reason: 'BadRequest' });
  });

  it('the list resourceVersion changes after a write in the listed collection', async () => {
    const { core, namespace } = fixture();
    await createMany(namespace, 1);
    const before = await core.listNamespacedConfigMap({ namespace });
    await createConfigMap(core, namespace);
    const after = await core.listNamespacedConfigMap({ namespace });
    expect(after.metadata?.resourceVersion).to.not.equal(before.metadata?.resourceVersion);
  });
});
