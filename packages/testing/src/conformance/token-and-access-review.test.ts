import { expect } from 'chai';
import { CoreV1Api, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { eventually } from '../helpers/eventually.js';
import { rawRequest, type RawResponse } from '../helpers/raw-request.js';
import { uniqueName } from '../helpers/unique-name.js';
import { createServiceAccount, type TestServiceAccount } from '../helpers/create-service-account.js';
import { useConformanceFixture } from './conformance-fixture.js';

// TokenReview and SubjectAccessReview as a server that delegates authentication and authorization
// to kube-apiserver sends them (controller-runtime's secure metrics server, kube-rbac-proxy): a
// TokenRequest token reviewed, forged and mis-addressed ones refused with kube-apiserver's words,
// and `get` on a non-resource URL decided by a ClusterRole bound with a ClusterRoleBinding.
describe('conformance: TokenReview and SubjectAccessReview', function () {
  this.timeout(60_000);
  const fixture = useConformanceFixture({ authorization: 'RBAC' });
  /** kube-apiserver's default API audience: the test servers' service-account issuer. */
  const API_AUDIENCE = 'https://kubernetes.default.svc.cluster.local';

  interface Review {
    readonly kind: string;
    readonly apiVersion: string;
    readonly spec: Record<string, unknown>;
    readonly status: Record<string, unknown>;
  }

  function post(kubeConfig: KubeConfig, path: string, kind: string, spec: Record<string, unknown>): Promise<RawResponse> {
    const [group] = path.split('/').slice(2, 3);
    return rawRequest(kubeConfig, {
      method: 'POST',
      path,
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: `${group}/v1`, kind, spec }),
    });
  }

  async function tokenReview(spec: Record<string, unknown>, kubeConfig = fixture().kubeConfig): Promise<Review> {
    const response = await post(kubeConfig, '/apis/authentication.k8s.io/v1/tokenreviews', 'TokenReview', spec);
    expect(response.status, response.text).to.equal(201);
    return JSON.parse(response.text) as Review;
  }

  const tokenOf = (sa: TestServiceAccount): string => sa.kubeConfig.getCurrentUser()!.token!;

  it('authenticates a TokenRequest token: the ServiceAccount, its uid, groups and credential id, for the API audience', async () => {
    const { namespace, core } = fixture();
    const sa = await createServiceAccount(fixture().kubeConfig, namespace);
    const uid = (await core.readNamespacedServiceAccount({ name: sa.name, namespace })).metadata!.uid!;
    const review = await tokenReview({ token: tokenOf(sa) });
    expect(review).to.include({ kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1' });
    expect(review.spec).to.deep.equal({ token: tokenOf(sa) });
    const { user, ...rest } = review.status as { user: { extra: Record<string, string[]> } };
    expect(rest).to.deep.equal({ authenticated: true, audiences: [API_AUDIENCE] });
    const { extra, ...identity } = user;
    expect(identity).to.deep.equal({
      username: sa.user,
      uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
    });
    expect(Object.keys(extra)).to.deep.equal(['authentication.kubernetes.io/credential-id']);
    expect(extra['authentication.kubernetes.io/credential-id'])
      .to.have.length(1)
      .and.to.match(/^JTI=[0-9a-f-]{36}$/);
  });

  it('refuses unknown, tampered and orphaned tokens with 201, user {} and why', async () => {
    const { namespace, core } = fixture();
    const sa = await createServiceAccount(fixture().kubeConfig, namespace);
    const token = tokenOf(sa);
    expect((await tokenReview({ token: 'not-a-token' })).status).to.deep.equal({ user: {}, error: 'invalid bearer token' });
    // The real server's tokens are JWTs: a changed signature is recognised and refused with go-jose's reason.
    const forged = `${token.slice(0, -8)}${token.endsWith('AAAAAAAA') ? 'BBBBBBBB' : 'AAAAAAAA'}`;
    const tampered = (await tokenReview({ token: forged })).status;
    expect(tampered).to.have.keys('user', 'error');
    expect(tampered.user).to.deep.equal({});
    expect(tampered.error).to.be.oneOf([
      'invalid bearer token',
      '[invalid bearer token, go-jose/go-jose: error in cryptographic primitive]',
    ]);
    await core.deleteNamespacedServiceAccount({ name: sa.name, namespace });
    await eventually(async () =>
      expect((await tokenReview({ token })).status).to.deep.equal({
        user: {},
        error: `[invalid bearer token, serviceaccounts "${sa.name}" not found]`,
      }),
    );
    // A new ServiceAccount of the same name has another uid: the old token stays refused.
    const again = await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: sa.name } } });
    await eventually(async () =>
      expect((await tokenReview({ token })).status.error).to.match(
        new RegExp(
          `^\\[invalid bearer token, service account UID \\(${again.metadata!.uid!}\\) does not match claim \\([0-9a-f-]{36}\\)\\]$`,
        ),
      ),
    );
  });

  it('checks the audiences asked for against those the token was issued for', async () => {
    const sa = await createServiceAccount(fixture().kubeConfig, fixture().namespace);
    const token = tokenOf(sa);
    expect((await tokenReview({ token, audiences: ['other'] })).status).to.deep.equal({
      user: {},
      error: `[invalid bearer token, token audiences ["${API_AUDIENCE}"] is invalid for the target audiences ["other"]]`,
    });
    const both = await tokenReview({ token, audiences: [API_AUDIENCE, 'other'] });
    expect(both.spec).to.deep.equal({ token, audiences: [API_AUDIENCE, 'other'] });
    expect(both.status).to.deep.include({ authenticated: true, audiences: [API_AUDIENCE] });
  });

  it('answers 400 to a TokenReview without a token and 403 to a caller without create on tokenreviews', async () => {
    const empty = await post(fixture().kubeConfig, '/apis/authentication.k8s.io/v1/tokenreviews', 'TokenReview', {});
    expect(empty.status).to.equal(400);
    expect(JSON.parse(empty.text)).to.deep.include({
      reason: 'BadRequest',
      message: 'token is required for TokenReview in authentication',
    });
    const sa = await createServiceAccount(fixture().kubeConfig, fixture().namespace);
    const refused = await post(sa.kubeConfig, '/apis/authentication.k8s.io/v1/tokenreviews', 'TokenReview', { token: tokenOf(sa) });
    expect(refused.status).to.equal(403);
    expect(JSON.parse(refused.text)).to.deep.include({
      message: `tokenreviews.authentication.k8s.io is forbidden: User "${sa.user}" cannot create resource "tokenreviews" in API group "authentication.k8s.io" at the cluster scope`,
    });
  });

  it('decides get on a non-resource URL by ClusterRoleBindings, naming the binding that allows it', async () => {
    const { namespace, kubeConfig } = fixture();
    const sa = await createServiceAccount(kubeConfig, namespace);
    const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const name = uniqueName('metrics-reader');
    await rbac.createClusterRole({ body: { metadata: { name }, rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }] } });
    try {
      await rbac.createClusterRoleBinding({
        body: {
          metadata: { name },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
          subjects: [{ kind: 'ServiceAccount', name: sa.name, namespace }],
        },
      });
      const groups = ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'];
      const review = async (path: string, verb = 'get'): Promise<Review> => {
        const spec = { user: sa.user, uid: 'any-uid', groups, extra: { k: ['v'] }, nonResourceAttributes: { path, verb } };
        const response = await post(kubeConfig, '/apis/authorization.k8s.io/v1/subjectaccessreviews', 'SubjectAccessReview', spec);
        expect(response.status, response.text).to.equal(201);
        const answer = JSON.parse(response.text) as Review;
        expect(answer.spec).to.deep.equal(spec);
        return answer;
      };
      // kube-apiserver's RBAC authorizer reads bindings from informers: they apply shortly after.
      await eventually(async () =>
        expect((await review('/metrics')).status).to.deep.equal({
          allowed: true,
          reason: `RBAC: allowed by ClusterRoleBinding "${name}" of ClusterRole "${name}" to ServiceAccount "${sa.name}/${namespace}"`,
        }),
      );
      for (const [path, verb] of [['/debug/controllers'], ['/metrics/extra'], ['/metrics', 'post']] as const) {
        expect((await review(path, verb)).status, `${verb ?? 'get'} ${path}`).to.deep.equal({ allowed: false });
      }
    } finally {
      await rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
      await rbac.deleteClusterRole({ name });
    }
  });

  it('refuses a SubjectAccessReview without exactly one kind of attributes, or without a user or group, with 422', async () => {
    const review = (spec: Record<string, unknown>) =>
      post(fixture().kubeConfig, '/apis/authorization.k8s.io/v1/subjectaccessreviews', 'SubjectAccessReview', spec);
    const attributes = 'exactly one of nonResourceAttributes or resourceAttributes must be specified';
    const noUser = 'at least one of user or group must be specified';
    const cases: [Record<string, unknown>, string, { field: string; message: string }[]][] = [
      [
        { user: 'a' },
        `spec.resourceAttributes: Invalid value: null: ${attributes}`,
        [{ field: 'spec.resourceAttributes', message: `Invalid value: null: ${attributes}` }],
      ],
      [
        { user: 'a', nonResourceAttributes: { path: '/x', verb: 'get' }, resourceAttributes: { verb: 'get', resource: 'pods' } },
        'spec.nonResourceAttributes: Invalid value: {"Path":"/x","Verb":"get"}: cannot be specified in combination with resourceAttributes',
        [
          {
            field: 'spec.nonResourceAttributes',
            message: 'Invalid value: {"Path":"/x","Verb":"get"}: cannot be specified in combination with resourceAttributes',
          },
        ],
      ],
      [
        { user: '', groups: [], nonResourceAttributes: { path: '/x', verb: 'get' } },
        `spec.user: Invalid value: "": ${noUser}`,
        [{ field: 'spec.user', message: `Invalid value: "": ${noUser}` }],
      ],
      [
        {},
        `[spec.resourceAttributes: Invalid value: null: ${attributes}, spec.user: Invalid value: "": ${noUser}]`,
        [
          { field: 'spec.resourceAttributes', message: `Invalid value: null: ${attributes}` },
          { field: 'spec.user', message: `Invalid value: "": ${noUser}` },
        ],
      ],
    ];
    for (const [spec, message, causes] of cases) {
      const response = await review(spec);
      expect(response.status, JSON.stringify(spec)).to.equal(422);
      expect(JSON.parse(response.text), JSON.stringify(spec)).to.deep.include({
        reason: 'Invalid',
        message: `.authorization.k8s.io "" is invalid: ${message}`,
        details: { group: 'authorization.k8s.io', causes: causes.map((c) => ({ reason: 'FieldValueInvalid', ...c })) },
      });
    }
    // A group alone is a subject.
    const groupOnly = await review({ groups: ['g'], nonResourceAttributes: { path: '/x', verb: 'get' } });
    expect([groupOnly.status, (JSON.parse(groupOnly.text) as Review).status]).to.deep.equal([201, { allowed: false }]);
  });

  it('a ServiceAccount token reaches nothing it was not granted: TokenReview only says who it is', async () => {
    const sa = await createServiceAccount(fixture().kubeConfig, fixture().namespace);
    const refused = await sa.kubeConfig
      .makeApiClient(CoreV1Api)
      .listNamespace()
      .catch((e: { code?: number }) => e.code);
    expect(refused).to.equal(403);
    expect((await tokenReview({ token: tokenOf(sa) })).status).to.include({ authenticated: true });
  });
});
