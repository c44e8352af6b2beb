import { expect } from 'chai';
import {
  AuthenticationV1Api,
  AuthorizationV1Api,
  CoordinationV1Api,
  CoreV1Api,
  RbacAuthorizationV1Api,
  type V1PolicyRule,
} from '@kubernetes/client-node';
import { catchApiStatus, type ApiStatus } from '../helpers/api-status.js';
import { eventually } from '../helpers/eventually.js';
import { rawRequest } from '../helpers/raw-request.js';
import { uniqueName } from '../helpers/unique-name.js';
import { createServiceAccount, type TestServiceAccount } from '../helpers/create-service-account.js';
import { asPatch, configMapsPath, useConformanceFixture } from './conformance-fixture.js';

// RBAC as kube-apiserver enforces it: identities from TokenRequest tokens, Roles and bindings,
// the 403 wording byte for byte, the reviews behind `kubectl auth can-i` and `whoami`, and
// impersonation. The real server enforces RBAC always; the embedded one when asked.
describe('conformance: RBAC authorization', function () {
  this.timeout(60_000);
  const fixture = useConformanceFixture({ authorization: 'RBAC' });

  type Account = TestServiceAccount;

  /** A ServiceAccount in the test's namespace, with a TokenRequest token and no rights. */
  function serviceAccount(): Promise<Account> {
    return createServiceAccount(fixture().kubeConfig, fixture().namespace);
  }

  /** Binds `rules` (a Role in the test's namespace) to the account, and waits until the real server's authorizer sees it. */
  async function grant(account: Account, rules: V1PolicyRule[], probe: () => Promise<unknown>): Promise<void> {
    const { namespace, kubeConfig } = fixture();
    const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const name = uniqueName('role');
    await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules } });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: [{ kind: 'ServiceAccount', name: account.name, namespace }],
      },
    });
    // kube-apiserver's RBAC authorizer reads bindings from informers: they apply shortly after.
    await eventually(probe, { timeoutMs: 20_000 });
  }

  function expectForbidden(status: ApiStatus, message: string, details: ApiStatus['details']): void {
    expect(status).to.deep.include({ code: 403, reason: 'Forbidden', status: 'Failure', message });
    expect(status.details).to.deep.equal(details);
  }

  it('refuses a ServiceAccount without bindings with kube-apiserver 403s, for every scope and verb', async () => {
    const { namespace } = fixture();
    const sa = await serviceAccount();
    const core = sa.kubeConfig.makeApiClient(CoreV1Api);
    expectForbidden(
      await catchApiStatus(core.listNamespacedConfigMap({ namespace })),
      `configmaps is forbidden: User "${sa.user}" cannot list resource "configmaps" in API group "" in the namespace "${namespace}"`,
      { kind: 'configmaps' },
    );
    expectForbidden(
      await catchApiStatus(core.readNamespacedConfigMap({ namespace, name: 'x' })),
      `configmaps "x" is forbidden: User "${sa.user}" cannot get resource "configmaps" in API group "" in the namespace "${namespace}"`,
      { name: 'x', kind: 'configmaps' },
    );
    expectForbidden(
      await catchApiStatus(core.listNamespace()),
      `namespaces is forbidden: User "${sa.user}" cannot list resource "namespaces" in API group "" at the cluster scope`,
      { kind: 'namespaces' },
    );
    // A Namespace is its own namespace in the request's attributes.
    expectForbidden(
      await catchApiStatus(core.readNamespace({ name: namespace })),
      `namespaces "${namespace}" is forbidden: User "${sa.user}" cannot get resource "namespaces" in API group "" in the namespace "${namespace}"`,
      { name: namespace, kind: 'namespaces' },
    );
    expectForbidden(
      await catchApiStatus(
        sa.kubeConfig.makeApiClient(CoordinationV1Api).createNamespacedLease({ namespace, body: { metadata: { name: 'l' }, spec: {} } }),
      ),
      `leases.coordination.k8s.io is forbidden: User "${sa.user}" cannot create resource "leases" in API group "coordination.k8s.io" in the namespace "${namespace}"`,
      { group: 'coordination.k8s.io', kind: 'leases' },
    );
    expectForbidden(
      await catchApiStatus(core.deleteCollectionNamespacedConfigMap({ namespace })),
      `configmaps is forbidden: User "${sa.user}" cannot deletecollection resource "configmaps" in API group "" in the namespace "${namespace}"`,
      { kind: 'configmaps' },
    );
    // A watch of one object by field selector is authorized as that object.
    const watch = await rawRequest(sa.kubeConfig, {
      path: `${configMapsPath(namespace)}?watch=true&fieldSelector=metadata.name%3Done&timeoutSeconds=1`,
      headers: { accept: 'application/json' },
    });
    expect(watch.status).to.equal(403);
    expect(JSON.parse(watch.text)).to.deep.include({
      message: `configmaps "one" is forbidden: User "${sa.user}" cannot watch resource "configmaps" in API group "" in the namespace "${namespace}"`,
      details: { name: 'one', kind: 'configmaps' },
    });
  });

  it('non-resource paths: discovery for every authenticated user, other paths 403 with the path named', async () => {
    const sa = await serviceAccount();
    expect((await rawRequest(sa.kubeConfig, { path: '/apis', headers: { accept: 'application/json' } })).status).to.equal(200);
    expect((await rawRequest(sa.kubeConfig, { path: '/api/v1', headers: { accept: 'application/json' } })).status).to.equal(200);
    const metrics = await rawRequest(sa.kubeConfig, { path: '/metrics', headers: { accept: 'application/json' } });
    expect(metrics.status).to.equal(403);
    expect(JSON.parse(metrics.text)).to.deep.include({
      message: `forbidden: User "${sa.user}" cannot get path "/metrics"`,
      reason: 'Forbidden',
      details: {},
    });
  });

  it('authorizes a list or watch as one object only when its field selector, parsed as a field selector, requires that exact name', async () => {
    const { namespace } = fixture();
    const sa = await serviceAccount();
    const refusal = async (fieldSelector: string): Promise<Pick<ApiStatus, 'message' | 'details'>> => {
      const response = await rawRequest(sa.kubeConfig, {
        path: `${configMapsPath(namespace)}?watch=true&fieldSelector=${encodeURIComponent(fieldSelector)}&timeoutSeconds=1`,
        headers: { accept: 'application/json' },
      });
      expect(response.status, fieldSelector).to.equal(403);
      const { message, details } = JSON.parse(response.text) as ApiStatus;
      return { message, details };
    };
    const asObject = (name: string): Pick<ApiStatus, 'message' | 'details'> => ({
      message: `configmaps ${JSON.stringify(name)} is forbidden: User "${sa.user}" cannot watch resource "configmaps" in API group "" in the namespace "${namespace}"`,
      details: { name, kind: 'configmaps' },
    });
    const asCollection = {
      message: `configmaps is forbidden: User "${sa.user}" cannot watch resource "configmaps" in API group "" in the namespace "${namespace}"`,
      details: { kind: 'configmaps' },
    };
    // The value is unescaped, and any term of the selector may carry the name.
    expect(await refusal('metadata.name=a\\,b')).to.deep.equal(asObject('a,b'));
    expect(await refusal('metadata.namespace=x,metadata.name==one')).to.deep.equal(asObject('one'));
    // Spaces belong to the field, not around it; != names nothing.
    expect(await refusal('metadata.name = one')).to.deep.equal(asCollection);
    expect(await refusal('metadata.name!=one')).to.deep.equal(asCollection);
    // A name that is not a valid path segment, or a selector that does not parse, names nothing.
    expect(await refusal('metadata.name=a/b')).to.deep.equal(asCollection);
    expect(await refusal('metadata.name=one\\x')).to.deep.equal(asCollection);
  });

  it('a Role grants its verbs, resources, resourceNames and subresources in its namespace only', async () => {
    const { namespace, core: admin } = fixture();
    await admin.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'a' } } });
    await admin.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'b' } } });
    const sa = await serviceAccount();
    const core = sa.kubeConfig.makeApiClient(CoreV1Api);
    await grant(
      sa,
      [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] },
        { apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get', 'update'] },
        { apiGroups: [''], resources: ['namespaces/status'], verbs: ['get'] },
      ],
      () => core.listNamespacedConfigMap({ namespace }),
    );
    expect((await core.readNamespacedConfigMap({ namespace, name: 'a' })).metadata?.name).to.equal('a');
    expectForbidden(
      await catchApiStatus(core.readNamespacedConfigMap({ namespace, name: 'b' })),
      `configmaps "b" is forbidden: User "${sa.user}" cannot get resource "configmaps" in API group "" in the namespace "${namespace}"`,
      { name: 'b', kind: 'configmaps' },
    );
    // resourceNames never cover a create (it has no name yet).
    expect((await catchApiStatus(core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'a2' } } }))).code).to.equal(403);
    expect((await catchApiStatus(core.listConfigMapForAllNamespaces())).message).to.equal(
      `configmaps is forbidden: User "${sa.user}" cannot list resource "configmaps" in API group "" at the cluster scope`,
    );
    expect((await catchApiStatus(core.listNamespacedConfigMap({ namespace: 'default' }))).code).to.equal(403);
    // The subresource is granted, the resource itself is not.
    expect((await core.readNamespaceStatus({ name: namespace })).metadata?.name).to.equal(namespace);
    expect((await catchApiStatus(core.readNamespace({ name: namespace }))).code).to.equal(403);
    const statusOfOther = await catchApiStatus(core.readNamespaceStatus({ name: 'default' }));
    expect(statusOfOther.message).to.equal(
      `namespaces "default" is forbidden: User "${sa.user}" cannot get resource "namespaces/status" in API group "" in the namespace "default"`,
    );
    expect(statusOfOther.details).to.deep.equal({ name: 'default', kind: 'namespaces' });
  });

  it('a ClusterRole applies cluster-wide through a ClusterRoleBinding to a group, with wildcards', async () => {
    const { namespace, kubeConfig } = fixture();
    const sa = await serviceAccount();
    const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const name = uniqueName('conformance-rbac');
    await rbac.createClusterRole({
      body: { metadata: { name }, rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['*'], verbs: ['get', 'list'] }] },
    });
    try {
      await rbac.createClusterRoleBinding({
        body: {
          metadata: { name },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
          subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: `system:serviceaccounts:${namespace}` }],
        },
      });
      const leases = sa.kubeConfig.makeApiClient(CoordinationV1Api);
      await eventually(() => leases.listLeaseForAllNamespaces(), { timeoutMs: 20_000 });
      await leases.listNamespacedLease({ namespace: 'kube-system' });
      expect((await catchApiStatus(leases.deleteCollectionNamespacedLease({ namespace }))).code).to.equal(403);
      expect((await catchApiStatus(sa.kubeConfig.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace }))).code).to.equal(403);
    } finally {
      await rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
      await rbac.deleteClusterRole({ name });
    }
  });

  it('system:auth-delegator, bound to nobody, lets whom it is bound to create TokenReviews and SubjectAccessReviews only', async () => {
    const { namespace, kubeConfig } = fixture();
    const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const role = await rbac.readClusterRole({ name: 'system:auth-delegator' });
    expect(role.metadata?.labels).to.deep.equal({ 'kubernetes.io/bootstrapping': 'rbac-defaults' });
    expect(role.rules).to.deep.equal([
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ]);
    const bindings = await rbac.listClusterRoleBinding();
    expect(bindings.items.filter((b) => b.roleRef.name === 'system:auth-delegator')).to.deep.equal([]);
    const sa = await serviceAccount();
    const name = uniqueName('auth-delegator');
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' },
        subjects: [{ kind: 'ServiceAccount', name: sa.name, namespace }],
      },
    });
    try {
      const post = (path: string, body: unknown) =>
        rawRequest(sa.kubeConfig, { method: 'POST', path, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      const tokenReview = () =>
        post('/apis/authentication.k8s.io/v1/tokenreviews', {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token: 'not-a-token' },
        });
      await eventually(async () => expect((await tokenReview()).status).to.equal(201), { timeoutMs: 20_000 });
      const review = await post('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'someone', resourceAttributes: { verb: 'get', resource: 'configmaps', namespace } },
      });
      expect(review.status).to.equal(201);
      expect((await catchApiStatus(sa.kubeConfig.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace }))).code).to.equal(403);
    } finally {
      await rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
    }
  });

  it('SelfSubjectReview and SelfSubjectAccessReview answer as kubectl auth whoami and can-i read them', async () => {
    const { namespace } = fixture();
    const sa = await serviceAccount();
    const review = await sa.kubeConfig.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    expect(review.status?.userInfo?.username).to.equal(sa.user);
    expect(review.status?.userInfo?.groups).to.deep.equal([
      'system:serviceaccounts',
      `system:serviceaccounts:${namespace}`,
      'system:authenticated',
    ]);
    expect(review.status?.userInfo?.extra?.['authentication.kubernetes.io/credential-id']?.[0]).to.match(/^JTI=/);
    const authz = sa.kubeConfig.makeApiClient(AuthorizationV1Api);
    const canI = async (verb: string, resource: string): Promise<boolean> =>
      (await authz.createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: { namespace, verb, resource } } } })).status!
        .allowed;
    expect(await canI('list', 'configmaps')).to.equal(false);
    await grant(sa, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }], async () =>
      expect(await canI('list', 'configmaps')).to.equal(true),
    );
    expect(await canI('delete', 'configmaps')).to.equal(false);
    const rules = await authz.createSelfSubjectRulesReview({ body: { spec: { namespace } } });
    expect(rules.status?.resourceRules).to.deep.include({ verbs: ['list'], apiGroups: [''], resources: ['configmaps'] });
    // SubjectAccessReview asks for someone else: the admin may, with the allowing binding named.
    const admin = fixture().kubeConfig.makeApiClient(AuthorizationV1Api);
    const sar = await admin.createSubjectAccessReview({
      body: {
        spec: { user: sa.user, groups: ['system:authenticated'], resourceAttributes: { namespace, verb: 'list', resource: 'configmaps' } },
      },
    });
    expect(sar.status?.allowed).to.equal(true);
    expect(sar.status?.reason).to.match(
      /^RBAC: allowed by RoleBinding ".*" of Role ".*" to ServiceAccount ".*"$|^RBAC: allowed by RoleBinding/,
    );
  });

  it('impersonation needs the impersonate verb, and then the request runs as the impersonated user', async () => {
    const { namespace } = fixture();
    const sa = await serviceAccount();
    const asSa = await rawRequest(fixture().kubeConfig, {
      path: configMapsPath(namespace),
      headers: { accept: 'application/json', 'Impersonate-User': sa.user },
    });
    expect(asSa.status).to.equal(403);
    expect(JSON.parse(asSa.text)).to.deep.include({
      message: `configmaps is forbidden: User "${sa.user}" cannot list resource "configmaps" in API group "" in the namespace "${namespace}"`,
    });
    const whoami = await rawRequest(fixture().kubeConfig, {
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      headers: { accept: 'application/json', 'content-type': 'application/json', 'Impersonate-User': 'bob', 'Impersonate-Group': 'devs' },
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    });
    expect(whoami.status).to.equal(201);
    expect((JSON.parse(whoami.text) as { status: { userInfo: unknown } }).status.userInfo).to.deep.equal({
      username: 'bob',
      groups: ['devs', 'system:authenticated'],
    });
    const refused = await rawRequest(sa.kubeConfig, {
      path: configMapsPath(namespace),
      headers: { accept: 'application/json', 'Impersonate-User': 'bob' },
    });
    expect(refused.status).to.equal(403);
    // kube-apiserver 1.36 tries constrained impersonation (KEP-5284) last, and names its check.
    expect(JSON.parse(refused.text)).to.deep.include({
      message: `configmaps is forbidden: User "${sa.user}" cannot impersonate-on:user-info:list resource "configmaps" in API group "" in the namespace "${namespace}"`,
      details: { kind: 'configmaps' },
    });
  });

  it('refuses Roles and bindings that grant more than their author holds, unless it may escalate or bind', async () => {
    const { namespace, kubeConfig } = fixture();
    const sa = await serviceAccount();
    const rbac = sa.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await grant(
      sa,
      [
        { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
      ],
      () => sa.kubeConfig.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace }),
    );
    await rbac.createNamespacedRole({
      namespace,
      body: { metadata: { name: 'within' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] },
    });
    const groups = `["system:serviceaccounts" "system:serviceaccounts:${namespace}" "system:authenticated"]`;
    expectForbidden(
      await catchApiStatus(
        rbac.createNamespacedRole({
          namespace,
          body: {
            metadata: { name: 'beyond' },
            rules: [
              { apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ['get', 'delete'] },
              { apiGroups: [''], resources: ['secrets'], verbs: ['list'] },
            ],
          },
        }),
      ),
      `roles.rbac.authorization.k8s.io "beyond" is forbidden: user "${sa.user}" (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n` +
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete" "list"]}',
      { name: 'beyond', group: 'rbac.authorization.k8s.io', kind: 'roles' },
    );
    // A binding to a role granting more is refused too, until the author may `bind` that role.
    const admin = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const secretReader = uniqueName('secret-reader');
    await admin.createNamespacedRole({
      namespace,
      body: { metadata: { name: secretReader }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] },
    });
    const binding = {
      metadata: { name: 'b' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: secretReader },
      subjects: [{ kind: 'ServiceAccount', name: sa.name, namespace }],
    };
    expectForbidden(
      await catchApiStatus(rbac.createNamespacedRoleBinding({ namespace, body: binding })),
      `rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "${sa.user}" (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n` +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}',
      { name: 'b', group: 'rbac.authorization.k8s.io', kind: 'rolebindings' },
    );
    await grant(
      sa,
      [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], resourceNames: [secretReader], verbs: ['bind'] }],
      () => rbac.createNamespacedRoleBinding({ namespace, body: binding }),
    );
  });

  it('checks the patched Role or binding (merge, strategic, JSON patch and apply) as it checks a create; owner and finalizer changes pass', async () => {
    const { namespace, kubeConfig } = fixture();
    const sa = await serviceAccount();
    const rbac = sa.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const admin = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const role = uniqueName('role');
    const roleUid = (
      await admin.createNamespacedRole({
        namespace,
        body: { metadata: { name: role }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] },
      })
    ).metadata!.uid!;
    await grant(
      sa,
      [
        { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['get', 'patch'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
      ],
      () => rbac.readNamespacedRole({ namespace, name: role }),
    );
    const groups = `["system:serviceaccounts" "system:serviceaccounts:${namespace}" "system:authenticated"]`;
    const refusal = (resource: string, name: string, missing: string): string =>
      `${resource}.rbac.authorization.k8s.io "${name}" is forbidden: user "${sa.user}" (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${missing}`;
    const secretsGet = '{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}';
    const wider = [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
    ];
    const details = (kind: string, name: string) => ({ name, group: 'rbac.authorization.k8s.io', kind });
    for (const [patchType, body] of [
      ['merge', { rules: wider }],
      ['strategic', { rules: wider }],
      ['json', [{ op: 'add', path: '/rules/-', value: wider[1] }]],
    ] as const) {
      expectForbidden(
        await catchApiStatus(rbac.patchNamespacedRole({ namespace, name: role, body }, asPatch[patchType]())),
        refusal('roles', role, secretsGet),
        details('roles', role),
      );
    }
    const apply = await rawRequest(sa.kubeConfig, {
      method: 'PATCH',
      path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/roles/${role}?fieldManager=escalator&force=true`,
      headers: { 'content-type': 'application/apply-patch+yaml', accept: 'application/json' },
      body: JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: role }, rules: wider }),
    });
    expect(apply.status).to.equal(403);
    expect(JSON.parse(apply.text)).to.deep.include({
      reason: 'Forbidden',
      message: refusal('roles', role, secretsGet),
      details: details('roles', role),
    });
    // Within the author's own rights a patch passes.
    const narrowed = await rbac.patchNamespacedRole(
      { namespace, name: role, body: { rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] } },
      asPatch.merge(),
    );
    expect(narrowed.rules).to.deep.equal([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]);

    // A Role granting more than the author holds: any other change is checked, even of a label;
    // what the garbage collector needs (owner references, finalizers) is not.
    const wide = uniqueName('wide');
    await admin.createNamespacedRole({ namespace, body: { metadata: { name: wide }, rules: wider } });
    expectForbidden(
      await catchApiStatus(
        rbac.patchNamespacedRole({ namespace, name: wide, body: { metadata: { labels: { a: 'b' } } } }, asPatch.merge()),
      ),
      refusal('roles', wide, secretsGet),
      details('roles', wide),
    );
    const owner = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', name: role, uid: roleUid };
    const owned = await rbac.patchNamespacedRole(
      { namespace, name: wide, body: { metadata: { ownerReferences: [owner], finalizers: ['example.com/keep'] } } },
      asPatch.merge(),
    );
    expect(owned.metadata?.finalizers).to.deep.equal(['example.com/keep']);
    await admin.patchNamespacedRole({ namespace, name: wide, body: { metadata: { finalizers: null } } }, asPatch.merge());

    // A binding is checked against the role it references.
    const binding = uniqueName('binding');
    await admin.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: binding },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: wide },
        subjects: [{ kind: 'User', name: 'nobody', apiGroup: 'rbac.authorization.k8s.io' }],
      },
    });
    expectForbidden(
      await catchApiStatus(
        rbac.patchNamespacedRoleBinding(
          {
            namespace,
            name: binding,
            body: [{ op: 'add', path: '/subjects/-', value: { kind: 'User', name: 'someone', apiGroup: 'rbac.authorization.k8s.io' } }],
          },
          asPatch.json(),
        ),
      ),
      refusal('rolebindings', binding, secretsGet),
      details('rolebindings', binding),
    );
  });

  it('checks a patched ClusterRole or ClusterRoleBinding too; a PUT changing only finalizers passes', async () => {
    const { namespace, kubeConfig } = fixture();
    const sa = await serviceAccount();
    const admin = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const rbac = sa.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const grantor = uniqueName('conformance-grantor');
    const wide = uniqueName('conformance-wide');
    const rules = [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }];
    await admin.createClusterRole({
      body: {
        metadata: { name: grantor },
        rules: [
          {
            apiGroups: ['rbac.authorization.k8s.io'],
            resources: ['clusterroles', 'clusterrolebindings'],
            verbs: ['get', 'patch', 'update'],
          },
        ],
      },
    });
    await admin.createClusterRole({ body: { metadata: { name: wide }, rules } });
    try {
      await admin.createClusterRoleBinding({
        body: {
          metadata: { name: grantor },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: grantor },
          subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: `system:serviceaccounts:${namespace}` }],
        },
      });
      await admin.createClusterRoleBinding({
        body: {
          metadata: { name: wide },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: wide },
          subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'nobody' }],
        },
      });
      await eventually(() => rbac.readClusterRole({ name: wide }), { timeoutMs: 20_000 });
      const groups = `["system:serviceaccounts" "system:serviceaccounts:${namespace}" "system:authenticated"]`;
      const refusal = (resource: string, name: string): string =>
        `${resource}.rbac.authorization.k8s.io "${name}" is forbidden: user "${sa.user}" (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n` +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}';
      expectForbidden(
        await catchApiStatus(rbac.patchClusterRole({ name: wide, body: { metadata: { labels: { a: 'b' } } } }, asPatch.merge())),
        refusal('clusterroles', wide),
        { name: wide, group: 'rbac.authorization.k8s.io', kind: 'clusterroles' },
      );
      expectForbidden(
        await catchApiStatus(rbac.patchClusterRoleBinding({ name: wide, body: { metadata: { labels: { a: 'b' } } } }, asPatch.strategic())),
        refusal('clusterrolebindings', wide),
        { name: wide, group: 'rbac.authorization.k8s.io', kind: 'clusterrolebindings' },
      );
      const read = await rbac.readClusterRole({ name: wide });
      const kept = await rbac.replaceClusterRole({
        name: wide,
        body: { ...read, metadata: { ...read.metadata, finalizers: ['example.com/keep'] } },
      });
      expect(kept.metadata?.finalizers).to.deep.equal(['example.com/keep']);
      expectForbidden(
        await catchApiStatus(
          rbac.replaceClusterRole({ name: wide, body: { ...kept, metadata: { ...kept.metadata, labels: { a: 'b' } } } }),
        ),
        refusal('clusterroles', wide),
        { name: wide, group: 'rbac.authorization.k8s.io', kind: 'clusterroles' },
      );
    } finally {
      await admin.patchClusterRole({ name: wide, body: { metadata: { finalizers: null } } }, asPatch.merge()).catch(() => undefined);
      for (const name of [grantor, wide]) {
        await admin.deleteClusterRoleBinding({ name }).catch(() => undefined);
        await admin.deleteClusterRole({ name }).catch(() => undefined);
      }
    }
  });

  it("an anonymous request is system:anonymous, refused with 403; a deleted ServiceAccount's token gets 401", async () => {
    const { namespace, core } = fixture();
    const anonymous = await rawRequest(fixture().kubeConfig, {
      path: configMapsPath(namespace),
      authenticate: false,
      headers: { accept: 'application/json' },
    });
    expect(anonymous.status).to.equal(403);
    expect(JSON.parse(anonymous.text)).to.deep.include({
      message: `configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "${namespace}"`,
    });
    const sa = await serviceAccount();
    await core.deleteNamespacedServiceAccount({ namespace, name: sa.name });
    await eventually(
      async () =>
        expect((await catchApiStatus(sa.kubeConfig.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace }))).code).to.equal(401),
      {
        timeoutMs: 20_000,
      },
    );
  });
});
