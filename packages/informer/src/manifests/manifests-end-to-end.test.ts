import { expect } from 'chai';
import { createServer, type AddressInfo } from 'node:net';
import Type from 'typebox';
import { CoreV1Api, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { ResourceID, UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { createNamespace, eventually, uniqueName, useTestApiServer } from '@kindex/testing';
import {
  Kinds,
  KubeClient,
  Operator,
  customResource,
  defineOperator,
  resourceKind,
  type ObjectOfKind,
  type ResourceKind,
} from '../index.js';
import { describeOnly, operatorManifests, type ManifestFile } from '../internal.js';
import { serviceAccountToken, tlsGet } from '../testing-fixtures/secure-server.js';

/** Where each kind of the output lives, to apply it through KubeClient. */
const KINDS: Record<string, { plural: string; namespaced: boolean }> = {
  Namespace: { plural: 'namespaces', namespaced: false },
  CustomResourceDefinition: { plural: 'customresourcedefinitions', namespaced: false },
  ServiceAccount: { plural: 'serviceaccounts', namespaced: true },
  ClusterRole: { plural: 'clusterroles', namespaced: false },
  ClusterRoleBinding: { plural: 'clusterrolebindings', namespaced: false },
  Role: { plural: 'roles', namespaced: true },
  RoleBinding: { plural: 'rolebindings', namespaced: true },
  Deployment: { plural: 'deployments', namespaced: true },
  Service: { plural: 'services', namespaced: true },
  Secret: { plural: 'secrets', namespaced: true },
  ValidatingWebhookConfiguration: { plural: 'validatingwebhookconfigurations', namespaced: false },
  MutatingWebhookConfiguration: { plural: 'mutatingwebhookconfigurations', namespaced: false },
};

function kindOf(object: Record<string, unknown>): ResourceKind<KubernetesObject> {
  const [group, version] = String(object['apiVersion']).includes('/')
    ? String(object['apiVersion']).split('/')
    : ['', String(object['apiVersion'])];
  const kind = String(object['kind']);
  const where = KINDS[kind];
  if (where === undefined) throw new Error(`the test does not know where ${kind} lives`);
  return resourceKind({ group: group!, version: version!, kind, ...where });
}

/**
 * End to end: the manifests `kindex manifests` writes for a definition, applied with server-side
 * apply to a server that enforces RBAC, are all the operator needs: started with the token of the
 * ServiceAccount they create, it takes its Lease and reconciles a custom resource.
 */
describe('operatorManifests applied to a server that enforces RBAC', function () {
  this.timeout(120_000);
  const server = useTestApiServer({ shared: true, authorization: 'RBAC' });
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  });

  /** Applies every object of `files` in the order kindex manifests writes them; deletes them after the test. */
  async function applyAll(admin: KubeClient, files: readonly ManifestFile[]): Promise<void> {
    for (const file of files) {
      for (const object of file.objects) {
        const kind = kindOf(object);
        await admin.apply(kind, object, { fieldManager: 'kindex-manifests-test', force: true });
        const metadata = object['metadata'] as { name: string; namespace?: string };
        cleanups.push(() => admin.delete(kind, ResourceID.of(metadata.name, metadata.namespace)));
      }
    }
  }

  function offlineKubeConfig(): KubeConfig {
    const offline = new KubeConfig();
    offline.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://offline.invalid', skipTLSVerify: false }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    return offline;
  }

  it('the generated ServiceAccount, RBAC and CRD let the operator run as that ServiceAccount and reconcile', async () => {
    const name = uniqueName('op');
    const Gadgets = customResource({
      group: `${uniqueName('g')}.kindex.dev`,
      kind: 'Gadget',
      plural: 'gadgets',
      versions: {
        v1: {
          spec: Type.Object({ size: Type.Integer() }),
          status: Type.Object({ seen: Type.Optional(Type.Integer()) }),
          subresources: { status: true },
        },
      },
    });
    type Gadget = ObjectOfKind<typeof Gadgets>;
    const reconciler: Reconciler<Gadget, KubeClient> = {
      reconcile: (gadget) => UpdateControl.patchStatus<Gadget>({ ...gadget, status: { seen: gadget.spec.size } }),
    };
    // A fixed port, as the Deployment needs, that is free here to start the operator on.
    const port = await freePort();
    const definition = defineOperator({
      name,
      customResources: [Gadgets],
      create: ({ kubeConfig, namespace }) => {
        const operator = new Operator({
          kubeConfig,
          server: { port, host: '127.0.0.1' },
          leaderElection: {
            leaseName: name,
            leaseNamespace: namespace,
            leaseDurationMs: 4_000,
            renewDeadlineMs: 3_000,
            retryPeriodMs: 500,
          },
        });
        operator.register(reconciler, { kind: Gadgets, name: 'gadgets' });
        return operator;
      },
    });
    const namespace = `${name}-system`;
    // What the CLI does: create the operator with a KubeConfig that never connects, starting nothing.
    const described = await describeOnly('test definition', 'kindex manifests', async () =>
      definition.create({ kubeConfig: offlineKubeConfig(), namespace }),
    );
    const { files } = await operatorManifests(described, {
      name,
      namespace,
      image: 'example.com/gadget-operator:1.0.0',
      customResources: [Gadgets],
    });

    const admin = new KubeClient(server().kubeConfig);
    cleanups.push(async () => admin.registry?.stopAll());
    await applyAll(admin, files);
    expect(files.flatMap((f) => f.objects.map((o) => o['kind']))).to.include.members([
      'Namespace',
      'ServiceAccount',
      'ClusterRole',
      'Role',
      'Deployment',
      'Service',
    ]);

    // The Deployment's pod passes the restricted Pod Security Standard the Namespace enforces
    // (kube-apiserver's PodSecurity admission checks pods, so a dry-run pod of its template).
    const deployment = files.find((f) => f.name === 'deployment.yaml')!.objects[0] as {
      spec: { template: { metadata: object; spec: object } };
    };
    const pod = (spec: object): Promise<unknown> =>
      admin.apply(Kinds.Pod, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'psa', namespace }, spec } as never, {
        fieldManager: 'kindex-manifests-test',
        dryRun: true,
      });
    await pod(deployment.spec.template.spec);
    if (server().flavor === 'real') {
      // The check can fail: the same pod without its securityContexts is refused.
      const failure = await pod({ serviceAccountName: name, containers: [{ name: 'operator', image: 'example.com/x:1' }] }).catch(
        (e: unknown) => e,
      );
      expect(String(failure)).to.contain('violates PodSecurity "restricted:latest"');
    }

    // The token of the ServiceAccount the manifests created, and nothing else granted to it.
    const token = await server()
      .kubeConfig.makeApiClient(CoreV1Api)
      .createNamespacedServiceAccountToken({ name, namespace, body: { spec: { audiences: [], expirationSeconds: 3600 } } });
    const asOperator = new KubeConfig();
    asOperator.loadFromClusterAndUser(server().kubeConfig.getCurrentCluster()!, { name, token: token.status!.token });
    const probe = new KubeClient(asOperator);
    cleanups.push(async () => probe.registry?.stopAll());
    // The CRD is served and the RBAC rules are in force once the authorizer's informers saw them.
    await eventually(async () => expect(await probe.list(Gadgets, { namespace })).to.deep.equal([]), { timeoutMs: 30_000 });

    const operator = await definition.create({ kubeConfig: asOperator, namespace });
    cleanups.push(() => operator.stop({ drainTimeoutMs: 5_000 }));
    await operator.start({ cacheSyncTimeoutMs: 30_000 });
    // The operator watches every namespace: a Gadget anywhere is reconciled.
    const workload = await createNamespace(server().kubeConfig);
    await admin.create(Gadgets, {
      apiVersion: Gadgets.apiVersion,
      kind: 'Gadget',
      metadata: { name: 'g', namespace: workload },
      spec: { size: 7 },
    });
    await eventually(async () => expect((await admin.get<Gadget>(Gadgets, ResourceID.of('g', workload)))?.status?.seen).to.equal(7), {
      timeoutMs: 30_000,
    });
    expect(operator.isLeader).to.equal(true);
  });
  it('with webhooks, a generated certificate Secret and an HTTPS metrics server, the server accepts every object (Secret, Service, configurations, CRD conversion, mounts)', async () => {
    const name = uniqueName('wh');
    const namespace = `${name}-system`;
    const group = `${uniqueName('p')}.kindex.dev`;
    const Pages = customResource({
      group,
      kind: 'Page',
      plural: 'pages',
      versions: {
        v1: { spec: Type.Object({ html: Type.String() }), storage: false },
        v2: { spec: Type.Object({ content: Type.Object({ html: Type.String() }) }), storage: true },
      },
    });
    const operator = new Operator({
      kubeConfig: offlineKubeConfig(),
      server: {
        port: 8443,
        healthProbePort: 8081,
        secure: { certFile: '/tmp/k8s-metrics-server/serving-certs/tls.crt', keyFile: '/tmp/k8s-metrics-server/serving-certs/tls.key' },
      },
      webhooks: { port: 9443, certDir: '/tmp/k8s-webhook-server/serving-certs' },
    });
    // Ignore: no pod serves them here, and only this test's Pages reach them.
    operator
      .webhooks!.validating({ kind: Pages, failurePolicy: 'Ignore', validate: () => ({ allowed: true }) })
      .mutating({ kind: Pages, failurePolicy: 'Ignore', mutate: (review) => ({ allowed: true, object: review.object! }) })
      .conversion({ group, plural: 'pages', kind: 'Page', hub: 'v2', spokes: { v1: { toHub: (o) => o, fromHub: (o) => o } } });
    const { files } = await operatorManifests(operator, {
      name,
      namespace,
      image: 'example.com/page-operator:1.0.0',
      customResources: [Pages],
      certificates: 'secret',
    });
    expect(files.map((f) => f.name)).to.include.members([
      'webhooks.yaml',
      'webhook-service.yaml',
      'certificates.yaml',
      'metrics-reader-rbac.yaml',
    ]);
    const admin = new KubeClient(server().kubeConfig);
    cleanups.push(async () => admin.registry?.stopAll());
    await applyAll(admin, files);
    const crds = resourceKind({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      plural: 'customresourcedefinitions',
      namespaced: false,
    });
    const crd = (await admin.get(crds, ResourceID.of(`pages.${group}`))) as
      (KubernetesObject & { spec: { conversion?: { strategy: string } } }) | undefined;
    expect(crd?.spec.conversion?.strategy).to.equal('Webhook');
    const secrets = await admin.list(Kinds.Secret, { namespace });
    expect(secrets.map((s) => s.metadata?.name).sort()).to.deep.equal([`${name}-metrics-server-cert`, `${name}-webhook-server-cert`]);
  });
  it('with an HTTPS metrics server: the generated RBAC lets the operator review scrapers, and binding <name>-metrics-reader lets one in', async () => {
    const name = uniqueName('mx');
    const namespace = `${name}-system`;
    const [port, probePort] = [await freePort(), await freePort()];
    const definition = defineOperator({
      name,
      create: ({ kubeConfig }) =>
        new Operator({ kubeConfig, server: { port, host: '127.0.0.1', healthProbePort: probePort, secure: true } }),
    });
    const described = await describeOnly('test definition', 'kindex manifests', async () =>
      definition.create({ kubeConfig: offlineKubeConfig(), namespace }),
    );
    const { files } = await operatorManifests(described, { name, namespace, image: 'example.com/metrics-operator:1.0.0' });
    const admin = new KubeClient(server().kubeConfig);
    cleanups.push(async () => admin.registry?.stopAll());
    await applyAll(admin, files);

    const operatorToken = await server()
      .kubeConfig.makeApiClient(CoreV1Api)
      .createNamespacedServiceAccountToken({ name, namespace, body: { spec: { audiences: [], expirationSeconds: 3600 } } });
    const asOperator = new KubeConfig();
    asOperator.loadFromClusterAndUser(server().kubeConfig.getCurrentCluster()!, { name, token: operatorToken.status!.token });
    const operator = await definition.create({ kubeConfig: asOperator, namespace });
    cleanups.push(() => operator.stop({ drainTimeoutMs: 5_000 }));
    await operator.start();

    // A scraper: refused until the generated ClusterRole is bound to it, then let in. Either
    // answer needs the operator's own reviews, which only the generated RBAC grants it.
    const scraper = await serviceAccountToken(server().kubeConfig, namespace);
    await eventually(async () => expect((await tlsGet(port, '/metrics', { token: scraper.token })).status).to.equal(403), {
      timeoutMs: 30_000,
    });
    const reader = files.find((f) => f.name === 'metrics-reader-rbac.yaml')!.objects[0] as { metadata: { name: string } };
    const rbac = server().kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: scraper.name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: reader.metadata.name },
        subjects: [{ kind: 'ServiceAccount', name: scraper.name, namespace }],
      },
    });
    cleanups.push(() => rbac.deleteClusterRoleBinding({ name: scraper.name }));
    // A new operator: the first one cached the denial for its TTL (30 s).
    await operator.stop({ drainTimeoutMs: 0 });
    const again = await definition.create({ kubeConfig: asOperator, namespace });
    cleanups.push(() => again.stop({ drainTimeoutMs: 5_000 }));
    await again.start();
    await eventually(
      async () => {
        const answer = await tlsGet(port, '/metrics', { token: scraper.token });
        expect(answer.status, answer.body).to.equal(200);
        expect(answer.body).to.contain('# TYPE');
      },
      { timeoutMs: 30_000 },
    );
  });
});

async function freePort(): Promise<number> {
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as AddressInfo;
  await new Promise((resolve) => listener.close(resolve));
  return port;
}
