import { expect } from 'chai';
import { rbacManifest, type RequiredPermission } from './rbac-manifest.js';

describe('rbacManifest', () => {
  const p = (
    resource: string,
    verbs: string[],
    namespaces: 'all' | string[],
    extra: Partial<RequiredPermission> = {},
  ): RequiredPermission => ({
    group: 'example.com',
    resource,
    verbs,
    namespaces,
    clusterScoped: false,
    ...extra,
  });

  it('puts named namespaces in Roles, all namespaces and cluster-scoped kinds in the ClusterRole', () => {
    const m = rbacManifest([
      p('jobs', ['list', 'watch'], ['a', 'b']),
      p('jobs/status', ['patch'], ['a']),
      p('configmaps', ['get'], 'all', { group: '' }),
      p('namespaces', ['list', 'watch'], ['a'], { group: '', clusterScoped: true }),
    ]);
    expect(m.clusterRules).to.deep.equal([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['list', 'watch'] },
    ]);
    expect([...m.namespacedRules.keys()]).to.deep.equal(['a', 'b']);
    expect(m.namespacedRules.get('a')).to.deep.equal([
      { apiGroups: ['example.com'], resources: ['jobs'], verbs: ['list', 'watch'] },
      { apiGroups: ['example.com'], resources: ['jobs/status'], verbs: ['patch'] },
    ]);
    expect(m.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}`)).to.deep.equal(['ClusterRole/', 'Role/a', 'Role/b']);
  });

  it('merges verbs of one resource, groups resources with the same verbs, and drops what the ClusterRole grants', () => {
    const m = rbacManifest([
      p('jobs', ['watch', 'list'], ['a']),
      p('jobs', ['get', 'list'], ['a']),
      p('pods', ['get', 'list', 'watch'], ['a']),
      p('secrets', ['get'], 'all'),
      p('secrets', ['get'], ['a']),
    ]);
    expect(m.namespacedRules.get('a')).to.deep.equal([
      { apiGroups: ['example.com'], resources: ['jobs', 'pods'], verbs: ['get', 'list', 'watch'] },
    ]);
    expect(m.clusterRules).to.deep.equal([{ apiGroups: ['example.com'], resources: ['secrets'], verbs: ['get'] }]);
  });

  it('binds every role to the subject and prints YAML documents ready for kubectl apply', () => {
    const m = rbacManifest([p('jobs', ['list'], ['a']), p('nodes', ['get'], 'all', { group: '', clusterScoped: true })], {
      name: 'op',
      subject: { kind: 'ServiceAccount', name: 'op', namespace: 'ops' },
    });
    expect(m.objects.map((o) => o.kind)).to.deep.equal(['ClusterRole', 'Role', 'ClusterRoleBinding', 'RoleBinding']);
    const docs = m.yaml.split('\n---\n');
    expect(docs).to.have.length(4);
    expect(docs[1]).to.equal(
      [
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: Role',
        'metadata:',
        '  name: op',
        '  namespace: a',
        'rules:',
        '  - apiGroups:',
        '      - example.com',
        '    resources:',
        '      - jobs',
        '    verbs:',
        '      - list',
      ].join('\n'),
    );
    expect(docs[3]).to.contain('kind: ServiceAccount').and.contain('namespace: ops').and.contain('kind: Role\n');
  });

  it('is empty for no permissions', () => {
    const m = rbacManifest([]);
    expect(m.objects).to.deep.equal([]);
    expect(m.yaml).to.equal('');
  });
});
