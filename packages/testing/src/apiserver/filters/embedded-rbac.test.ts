import { expect } from 'chai';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { catchApiStatus } from '../../helpers/api-status.js';
import { startEmbeddedApiServer, type EmbeddedApiServer } from '../embedded-api-server.js';

// What only the embedded server shows: the real test tier runs no clusterrole-aggregation controller, so its
// admin/edit/view ClusterRoles stay empty (nothing aggregates them), and its users come from a
// token file fixed at start. Shared behaviour is in conformance/rbac.test.ts.
describe('embedded API server: RBAC', () => {
  let server: EmbeddedApiServer;
  before(async () => {
    server = await startEmbeddedApiServer({ authorization: 'RBAC' });
  });
  after(() => server.stop());

  async function bind(namespace: string, role: string, subject: { kind: 'User' | 'Group'; name: string }): Promise<void> {
    await server.kubeConfig.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: `${role}-${subject.name}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', ...subject }],
      },
    });
  }

  it('view, edit and admin hold the rules aggregated into them, as in a cluster', async () => {
    const viewer = server.userKubeConfig({ username: 'viewer' }).makeApiClient(CoreV1Api);
    const editor = server.userKubeConfig({ username: 'editor' }).makeApiClient(CoreV1Api);
    const admin = server.userKubeConfig({ username: 'admin' }).makeApiClient(RbacAuthorizationV1Api);
    await bind('default', 'view', { kind: 'User', name: 'viewer' });
    await bind('default', 'edit', { kind: 'User', name: 'editor' });
    await bind('default', 'admin', { kind: 'User', name: 'admin' });
    // Changes apply at once: the index is rebuilt on the next request after an RBAC write.
    expect((await viewer.listNamespacedConfigMap({ namespace: 'default' })).items).to.be.an('array');
    expect(
      (await catchApiStatus(viewer.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'v' } } }))).message,
    ).to.equal('configmaps is forbidden: User "viewer" cannot create resource "configmaps" in API group "" in the namespace "default"');
    // view does not read Secrets; edit does (and, by aggregation of view into edit, lists ConfigMaps).
    expect((await catchApiStatus(viewer.listNamespacedSecret({ namespace: 'default' }))).code).to.equal(403);
    await editor.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'e' } } });
    await editor.listNamespacedSecret({ namespace: 'default' });
    await editor.listNamespacedConfigMap({ namespace: 'default' });
    expect((await catchApiStatus(editor.listNamespacedConfigMap({ namespace: 'kube-system' }))).code).to.equal(403);
    // admin manages Roles in its namespace; edit does not.
    await admin.createNamespacedRole({ namespace: 'default', body: { metadata: { name: 'r' }, rules: [] } });
    const editorRbac = server.userKubeConfig({ username: 'editor' }).makeApiClient(RbacAuthorizationV1Api);
    expect((await catchApiStatus(editorRbac.listNamespacedRole({ namespace: 'default' }))).code).to.equal(403);
  });

  it('a user kubeconfig carries its groups, and removing a binding revokes at once', async () => {
    const member = server.userKubeConfig({ username: 'carol', groups: ['readers'] }).makeApiClient(CoreV1Api);
    expect((await catchApiStatus(member.listNamespacedConfigMap({ namespace: 'kube-public' }))).code).to.equal(403);
    await bind('kube-public', 'view', { kind: 'Group', name: 'readers' });
    await member.listNamespacedConfigMap({ namespace: 'kube-public' });
    await server.kubeConfig
      .makeApiClient(RbacAuthorizationV1Api)
      .deleteNamespacedRoleBinding({ namespace: 'kube-public', name: 'view-readers' });
    expect((await catchApiStatus(member.listNamespacedConfigMap({ namespace: 'kube-public' }))).code).to.equal(403);
  });

  it('without authorization: RBAC every authenticated user may do everything, and anonymous requests stay 401', async () => {
    const open = await startEmbeddedApiServer();
    try {
      const dave = open.userKubeConfig({ username: 'dave' }).makeApiClient(CoreV1Api);
      await dave.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'd' } } });
      const anonymous = await fetch(`${open.url}/api/v1/namespaces/default/configmaps`);
      expect(anonymous.status).to.equal(401);
    } finally {
      await open.stop();
    }
  });

  it('refuses a user without a name', () => {
    expect(() => server.userKubeConfig({ username: '' })).to.throw('userKubeConfig: user.username is empty');
  });
});
