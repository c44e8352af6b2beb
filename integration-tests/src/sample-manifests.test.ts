// samples/job-cluster/deploy is the output of `kindex manifests` on the sample's definition
// (src/operator.ts): it is current (`pnpm run manifests:check`), and it is enough: applied to a
// server that enforces RBAC, the operator runs as the ServiceAccount it creates and reconciles
// Jobs, Clusters and ConfigBundles (ConfigMaps created, adopted and deleted by the reconciler).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { parse, parseAllDocuments } from 'yaml';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { ResourceID, type KubernetesObject } from '@kindex/core';
import { Kinds, KubeClient, resourceKind, type Operator, type ResourceKind } from '@kindex/informer';
import { createNamespace, eventually, useTestApiServer } from '@kindex/testing';
import definition from '@kindex/sample-job-cluster/src/operator.js';
import { ClusterKind, ConfigBundleKind, JobKind, type ConfigBundle, type Job } from '@kindex/sample-job-cluster/src/model.js';

const sample = fileURLToPath(new URL('../../samples/job-cluster/', import.meta.url));
const deploy = `${sample}deploy/`;
const kindex = fileURLToPath(new URL('../../packages/informer/bin/kindex.js', import.meta.url));

/** Where each kind of deploy/ lives, to apply it through KubeClient. */
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
};

function kindOf(object: KubernetesObject): ResourceKind<KubernetesObject> {
  const [group, version] = object.apiVersion!.includes('/') ? object.apiVersion!.split('/') : ['', object.apiVersion!];
  const where = KINDS[object.kind!];
  if (where === undefined) throw new Error(`deploy/ has a ${object.kind}, which this test does not know how to apply`);
  return resourceKind({ group: group!, version: version!, kind: object.kind!, ...where });
}

/** The objects of deploy/, in the order its kustomization.yaml lists the files. */
function deployObjects(): KubernetesObject[] {
  const { resources } = parse(readFileSync(`${deploy}kustomization.yaml`, 'utf8')) as { resources: string[] };
  return resources.flatMap((file) => parseAllDocuments(readFileSync(`${deploy}${file}`, 'utf8')).map((d) => d.toJS() as KubernetesObject));
}

describe('samples/job-cluster/deploy', function () {
  this.timeout(120_000);

  it('is the current output of `pnpm run manifests` (kindex manifests src/operator.ts --out deploy ...)', () => {
    const script = (JSON.parse(readFileSync(`${sample}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts['manifests']!;
    const [command, ...args] = script.split(' ');
    expect(command).to.equal('kindex');
    const check = spawnSync(process.execPath, [kindex, ...args, '--check'], { cwd: sample, encoding: 'utf8', timeout: 60_000 });
    expect(check.status, `deploy/ is stale: run \`pnpm --filter @kindex/sample-job-cluster run manifests\`\n${check.stderr}`).to.equal(0);
  });

  describe('applied to a server that enforces RBAC', () => {
    const server = useTestApiServer({ authorization: 'RBAC' });
    const stops: (() => Promise<unknown>)[] = [];
    after(async () => {
      for (const stop of stops.splice(0).reverse()) await stop().catch(() => {});
    });

    it('lets the sample operator run as its ServiceAccount and reconcile Jobs and ConfigBundles', async () => {
      const admin = new KubeClient(server().kubeConfig);
      stops.push(async () => admin.registry?.stopAll());
      const objects = deployObjects();
      for (const object of objects) await admin.apply(kindOf(object), object, { fieldManager: 'sample-manifests-test', force: true });
      const account = objects.find((o) => o.kind === 'ServiceAccount')!.metadata!;

      const token = await server()
        .kubeConfig.makeApiClient(CoreV1Api)
        .createNamespacedServiceAccountToken({
          name: account.name!,
          namespace: account.namespace!,
          body: { spec: { audiences: [], expirationSeconds: 3600 } },
        });
      const asOperator = new KubeConfig();
      asOperator.loadFromClusterAndUser(server().kubeConfig.getCurrentCluster()!, { name: account.name!, token: token.status!.token });
      const probe = new KubeClient(asOperator);
      stops.push(async () => probe.registry?.stopAll());
      // The CRDs are served and the RBAC rules in force once the authorizer's informers saw them.
      await eventually(async () => expect(await probe.list(JobKind, { namespace: account.namespace! })).to.deep.equal([]), {
        timeoutMs: 30_000,
      });

      // What `main.ts --in-cluster` does through runOperator: the definition's operator, in its namespace.
      const operator: Operator = await definition.create({ kubeConfig: asOperator, namespace: account.namespace! });
      stops.push(() => operator.stop({ drainTimeoutMs: 5_000 }));
      await operator.start({ cacheSyncTimeoutMs: 30_000 });
      expect(operator.isLeader).to.equal(true);

      const ns = await createNamespace(server().kubeConfig);
      await admin.create(ClusterKind, {
        apiVersion: ClusterKind.apiVersion,
        kind: 'Cluster',
        metadata: { name: 'c', namespace: ns },
        spec: { clusterValue: 'v1' },
      });
      await admin.create(JobKind, {
        apiVersion: JobKind.apiVersion,
        kind: 'Job',
        metadata: { name: 'j', namespace: ns },
        spec: { clusterName: 'c' },
      });
      await admin.create(ConfigBundleKind, {
        apiVersion: ConfigBundleKind.apiVersion,
        kind: 'ConfigBundle',
        metadata: { name: 'b', namespace: ns },
        spec: { entries: { a: '1', b: '2' } },
      });
      await eventually(
        async () => {
          expect((await admin.get<Job>(JobKind, ResourceID.of('j', ns)))?.status?.valueFromCluster).to.equal('v1');
          expect((await admin.get<ConfigBundle>(ConfigBundleKind, ResourceID.of('b', ns)))?.status).to.deep.include({ configMaps: 2 });
        },
        { timeoutMs: 30_000 },
      );
      // Dropping an entry deletes its ConfigMap: the reconciler's own delete, granted by `writes`.
      // A merge patch: null removes the entry.
      await admin.patch(ConfigBundleKind, ResourceID.of('b', ns), { spec: { entries: { b: null } } });
      await eventually(async () => expect(await admin.get(Kinds.ConfigMap, ResourceID.of('b-b', ns))).to.equal(undefined), {
        timeoutMs: 30_000,
      });
    });
  });
});
