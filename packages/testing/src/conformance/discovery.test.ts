import { expect } from 'chai';
import { ApisApi, CoreApi, VersionApi, type V1APIResource } from '@kubernetes/client-node';
import { useConformanceFixture } from './conformance-fixture.js';

function resource(list: { resources: V1APIResource[] }, name: string): V1APIResource {
  const found = list.resources.find((r) => r.name === name);
  if (found === undefined) throw new Error(`discovery does not list ${name}: ${list.resources.map((r) => r.name).join(', ')}`);
  return found;
}

describe('conformance: discovery', () => {
  const fixture = useConformanceFixture();

  it('serves /version with a git version', async () => {
    const version = await fixture().kubeConfig.makeApiClient(VersionApi).getCode();
    expect(version.gitVersion).to.be.a('string').and.not.equal('');
    expect(version.major).to.be.a('string');
  });

  it('serves /api listing the core version v1', async () => {
    const versions = await fixture().kubeConfig.makeApiClient(CoreApi).getAPIVersions();
    expect(versions.versions).to.include('v1');
  });

  it('serves /api/v1 with the core resources, their scope, kind and verbs', async () => {
    const list = await fixture().core.getAPIResources();
    expect(list.groupVersion).to.equal('v1');
    expect(resource(list, 'namespaces')).to.include({ namespaced: false, kind: 'Namespace' });
    for (const [name, kind] of [
      ['configmaps', 'ConfigMap'],
      ['secrets', 'Secret'],
      ['pods', 'Pod'],
      ['services', 'Service'],
      ['events', 'Event'],
    ] as const) {
      const entry = resource(list, name);
      expect(entry, name).to.include({ namespaced: true, kind });
      expect(entry.verbs, name).to.include.members(['create', 'get', 'list', 'watch', 'update', 'patch', 'delete']);
    }
  });

  it('serves /apis listing coordination.k8s.io and apiextensions.k8s.io with a preferred version', async () => {
    const groups = await fixture().kubeConfig.makeApiClient(ApisApi).getAPIVersions();
    const byName = new Map(groups.groups.map((g) => [g.name, g]));
    for (const name of ['coordination.k8s.io', 'apiextensions.k8s.io']) {
      const group = byName.get(name);
      expect(group, name).to.not.equal(undefined);
      expect(
        group!.versions.map((v) => v.groupVersion),
        name,
      ).to.include(`${name}/v1`);
      expect(group!.preferredVersion?.groupVersion, name).to.be.a('string');
    }
  });

  it('serves /apis/coordination.k8s.io/v1 with namespaced leases', async () => {
    const list = await fixture().coordination.getAPIResources();
    expect(list.groupVersion).to.equal('coordination.k8s.io/v1');
    expect(resource(list, 'leases')).to.include({ namespaced: true, kind: 'Lease' });
  });

  it('serves /apis/apiextensions.k8s.io/v1 with cluster-scoped customresourcedefinitions', async () => {
    const list = await fixture().apiextensions.getAPIResources();
    expect(list.groupVersion).to.equal('apiextensions.k8s.io/v1');
    expect(resource(list, 'customresourcedefinitions')).to.include({
      namespaced: false,
      kind: 'CustomResourceDefinition',
    });
  });

  it('lets KubernetesObjectApi resolve a kind to its path through discovery', async () => {
    const { objects, namespace } = fixture();
    const created = await objects.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'discovered', namespace },
      spec: { holderIdentity: 'me' },
    });
    expect(created.metadata?.name).to.equal('discovered');
    const read = await fixture().coordination.readNamespacedLease({ name: 'discovered', namespace });
    expect(read.spec?.holderIdentity).to.equal('me');
  });
});
