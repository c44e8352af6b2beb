import { expect } from 'chai';
import { AdmissionregistrationV1Api, CoreV1Api, RbacAuthorizationV1Api, type V1ValidatingWebhook } from '@kubernetes/client-node';
import { catchApiStatus } from '../helpers/api-status.js';
import { createServiceAccount } from '../helpers/create-service-account.js';
import { eventually } from '../helpers/eventually.js';
import { uniqueName } from '../helpers/unique-name.js';
import { useAdmissionWebhooks } from './admission-webhook-fixture.js';
import { createConfigMap, useConformanceFixture } from './conformance-fixture.js';

/**
 * The `authorizer` variable of admission webhook matchConditions (Kubernetes' CEL authz
 * library): conditions that ask what the requesting user may do, answered by RBAC.
 */
describe('admission webhook matchConditions with authorizer', function () {
  this.timeout(60_000);
  const f = useConformanceFixture({ authorization: 'RBAC' });
  const { hook, install, reviews, untilCalled } = useAdmissionWebhooks(f);

  it('calls each webhook as its conditions on the user’s rights decide, for the admin and for a ServiceAccount', async () => {
    const { namespace, kubeConfig } = f();
    const account = await createServiceAccount(kubeConfig, namespace);
    const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const role = uniqueName('role');
    await rbac.createNamespacedRole({
      namespace,
      body: { metadata: { name: role }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get'] }] },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role },
        subjects: [{ kind: 'ServiceAccount', name: account.name, namespace }],
      },
    });
    const asAccount = account.kubeConfig.makeApiClient(CoreV1Api);

    const restricted = `/restricted/${uniqueName('p')}`;
    const deleters = `/deleters/${uniqueName('p')}`;
    const accountCan = `/account-can/${uniqueName('p')}`;
    const accountCannot = `/account-cannot/${uniqueName('p')}`;
    const probe = "object.metadata.name.startsWith('probe')";
    const asTheAccount = `authorizer.serviceAccount(request.namespace, '${account.name}').group('').resource('configmaps').namespace(request.namespace)`;
    const when = (name: string, expression: string) => ({ matchConditions: [{ name, expression }] });
    await install('validating', [
      // Users who may not delete Secrets here.
      hook(
        'restricted',
        restricted,
        when('restricted', `${probe} || !authorizer.group('').resource('secrets').namespace(request.namespace).check('delete').allowed()`),
      ),
      // Users who may delete what they write.
      hook('deleters', deleters, when('deleters', "authorizer.requestResource.check('delete').allowed()")),
      // Whatever the user, as the ServiceAccount's rights say.
      hook('account-can', accountCan, when('account-can', `${asTheAccount}.check('create').allowed()`)),
      hook('account-cannot', accountCannot, when('account-cannot', `${probe} || ${asTheAccount}.check('delete').allowed()`)),
    ]);
    await untilCalled(restricted);

    const byAdmin = uniqueName('admin');
    await createConfigMap(f().core, namespace, { name: byAdmin });
    expect([restricted, deleters, accountCan, accountCannot].map((p) => reviews(p, byAdmin).length)).to.deep.equal([0, 1, 1, 0]);

    // kube-apiserver's RBAC reads bindings from informers: the account's right arrives shortly.
    const byAccount = await eventually(
      async () => {
        const name = uniqueName('account');
        await asAccount.createNamespacedConfigMap({ namespace, body: { metadata: { name } } });
        return name;
      },
      { timeoutMs: 20_000, description: 'the ServiceAccount allowed to create ConfigMaps' },
    );
    expect([restricted, deleters, accountCan, accountCannot].map((p) => reviews(p, byAccount).length)).to.deep.equal([1, 0, 1, 0]);
  });

  it('fails the request when a check is malformed, naming the expression', async () => {
    const expression = "authorizer.group('').resource('').check('get').allowed()";
    await install('validating', [hook('malformed', `/malformed/${uniqueName('p')}`, { matchConditions: [{ name: 'empty', expression }] })]);
    const status = await eventually(
      async () => {
        const s = await catchApiStatus(createConfigMap(f().core, f().namespace));
        expect(s.code).to.equal(403);
        return s;
      },
      { timeoutMs: 20_000, description: 'the configuration becoming active' },
    );
    expect(status.message).to.include(`expression '${expression}' resulted in error: resource must not be empty`);
  });

  it('accepts a configuration whose conditions use authorizer', async () => {
    const admission = f().kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    const expression =
      "authorizer.path('/healthz').check('get').allowed() && authorizer.requestResource.subresource('status').check('update').reason() == ''";
    const name = uniqueName('accepted');
    const created = await admission.createValidatingWebhookConfiguration({
      body: {
        metadata: { name },
        webhooks: [hook('accepted', '/accepted', { matchConditions: [{ name: 'a', expression }] }) as V1ValidatingWebhook],
      },
    });
    await admission.deleteValidatingWebhookConfiguration({ name });
    expect(created.webhooks?.[0]?.matchConditions?.[0]?.expression).to.equal(expression);
  });
});

describe('admission webhook matchConditions with authorizer, under AlwaysAllow authorization', function () {
  this.timeout(60_000);
  const f = useConformanceFixture({ authorization: 'AlwaysAllow' });
  const { hook, install, reviews, untilCalled } = useAdmissionWebhooks(f);

  it('finds every check allowed, for any user', async () => {
    const { namespace, kubeConfig } = f();
    const account = await createServiceAccount(kubeConfig, namespace);
    const path = `/always/${uniqueName('p')}`;
    // A ServiceAccount with no bindings: only AlwaysAllow lets it delete Secrets cluster-wide.
    const expression = `object.metadata.name.startsWith('probe') || authorizer.serviceAccount('${namespace}', '${account.name}').group('').resource('secrets').check('delete').allowed()`;
    await install('validating', [hook('always', path, { matchConditions: [{ name: 'always', expression }] })]);
    await untilCalled(path);
    const name = uniqueName('cm');
    await account.kubeConfig.makeApiClient(CoreV1Api).createNamespacedConfigMap({ namespace, body: { metadata: { name } } });
    expect(reviews(path, name)).to.have.length(1);
  });
});
