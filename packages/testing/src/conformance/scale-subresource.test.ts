import { AppsV1Api, type ApiextensionsV1Api, type CustomObjectsApi } from '@kubernetes/client-node';
import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { eventually } from '../helpers/eventually.js';
import { createTestCrd } from '../helpers/test-crd.js';
import { uniqueName } from '../helpers/unique-name.js';
import { asPatch, useConformanceFixture } from './conformance-fixture.js';

interface Scale {
  kind?: string;
  apiVersion?: string;
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
  spec?: { replicas?: number };
  status?: { replicas?: number; selector?: string };
}

// A CRD declaring the scale subresource at non-standard paths (createTestCrd declares only status).
async function createScalableCrd(apiextensions: ApiextensionsV1Api, custom: CustomObjectsApi): Promise<{ group: string; plural: string }> {
  const group = `${uniqueName('g')}.kindex.test`;
  const plural = 'pools';
  const freeForm = { type: 'object', x_kubernetes_preserve_unknown_fields: true };
  await apiextensions.createCustomResourceDefinition({
    body: {
      metadata: { name: `${plural}.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural, singular: 'pool', kind: 'Pool', listKind: 'PoolList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: freeForm, status: freeForm } } },
            subresources: {
              status: {},
              scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.ready', labelSelectorPath: '.status.selector' },
            },
          },
        ],
      },
    },
  });
  await eventually(() => custom.listClusterCustomObject({ group, version: 'v1', plural }), { timeoutMs: 30_000, intervalMs: 100 });
  return { group, plural };
}

describe('conformance: scale subresource', () => {
  const fixture = useConformanceFixture();

  async function createDeployment(): Promise<AppsV1Api> {
    const { kubeConfig, namespace } = fixture();
    const apps = kubeConfig.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'd' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      },
    });
    return apps;
  }

  it("reads a Deployment's Scale: replicas, observed replicas and the selector as a string", async () => {
    const { namespace } = fixture();
    const apps = await createDeployment();
    const deployment = await apps.readNamespacedDeployment({ namespace, name: 'd' });
    const scale = await apps.readNamespacedDeploymentScale({ namespace, name: 'd' });
    expect(scale.kind).to.equal('Scale');
    expect(scale.apiVersion).to.equal('autoscaling/v1');
    expect(scale.metadata?.name).to.equal('d');
    expect(scale.metadata?.uid).to.equal(deployment.metadata?.uid);
    expect(scale.metadata?.resourceVersion).to.equal(deployment.metadata?.resourceVersion);
    expect(scale.spec).to.deep.equal({ replicas: 1 });
    expect(scale.status).to.deep.equal({ replicas: 0, selector: 'app=web' });
  });

  it("patches and replaces a Deployment's Scale, which writes spec.replicas", async () => {
    const { namespace } = fixture();
    const apps = await createDeployment();
    const patched = await apps.patchNamespacedDeploymentScale({ namespace, name: 'd', body: { spec: { replicas: 3 } } }, asPatch.merge());
    expect(patched.spec).to.deep.equal({ replicas: 3 });
    expect((await apps.readNamespacedDeployment({ namespace, name: 'd' })).spec?.replicas).to.equal(3);
    const replaced = await apps.replaceNamespacedDeploymentScale({ namespace, name: 'd', body: { ...patched, spec: { replicas: 4 } } });
    expect(replaced.spec).to.deep.equal({ replicas: 4 });
    expect(Number(replaced.metadata?.resourceVersion)).to.be.greaterThan(Number(patched.metadata?.resourceVersion));
    const deployment = await apps.readNamespacedDeployment({ namespace, name: 'd' });
    expect(deployment.spec?.replicas).to.equal(4);
    expect(deployment.metadata?.generation).to.equal(3);
  });

  it('refuses negative replicas (422 on the Scale), a stale resourceVersion (409) and a missing object (404)', async () => {
    const { namespace } = fixture();
    const apps = await createDeployment();
    const negative = await catchApiStatus(
      apps.replaceNamespacedDeploymentScale({ namespace, name: 'd', body: { metadata: { name: 'd' }, spec: { replicas: -1 } } }),
    );
    expect(negative.code).to.equal(422);
    expect(negative.message).to.equal(
      'Scale.autoscaling "d" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
    expect(negative.details).to.deep.include({ name: 'd', group: 'autoscaling', kind: 'Scale' });
    const scale = await apps.readNamespacedDeploymentScale({ namespace, name: 'd' });
    await apps.patchNamespacedDeploymentScale({ namespace, name: 'd', body: { spec: { replicas: 2 } } }, asPatch.merge());
    const stale = await catchApiStatus(
      apps.replaceNamespacedDeploymentScale({ namespace, name: 'd', body: { ...scale, spec: { replicas: 5 } } }),
    );
    expect(stale.code).to.equal(409);
    expect(stale.message).to.equal(
      'Operation cannot be fulfilled on deployments.apps "d": the object has been modified; please apply your changes to the latest version and try again',
    );
    const missing = await catchApiStatus(apps.readNamespacedDeploymentScale({ namespace, name: 'nope' }));
    expect(missing.code).to.equal(404);
    expect(missing.message).to.equal('deployments.apps "nope" not found');
  });

  it("serves a CRD's declared scale paths: reads spec and status paths, writes the spec path", async () => {
    const { apiextensions, custom, namespace } = fixture();
    const { group, plural } = await createScalableCrd(apiextensions, custom);
    const ref = { group, version: 'v1', plural, namespace, name: 'p' };
    await custom.createNamespacedCustomObject({
      ...ref,
      body: { apiVersion: `${group}/v1`, kind: 'Pool', metadata: { name: 'p' }, spec: { size: 2 } },
    });
    await custom.patchNamespacedCustomObjectStatus({ ...ref, body: { status: { ready: 1, selector: 'pool=p' } } }, asPatch.merge());
    const scale = (await custom.getNamespacedCustomObjectScale(ref)) as Scale;
    expect(scale.kind).to.equal('Scale');
    expect(scale.apiVersion).to.equal('autoscaling/v1');
    expect(scale.spec).to.deep.equal({ replicas: 2 });
    expect(scale.status).to.deep.equal({ replicas: 1, selector: 'pool=p' });
    const patched = (await custom.patchNamespacedCustomObjectScale({ ...ref, body: { spec: { replicas: 7 } } }, asPatch.merge())) as Scale;
    expect(patched.spec).to.deep.equal({ replicas: 7 });
    const obj = (await custom.getNamespacedCustomObject(ref)) as { spec?: Record<string, unknown>; status?: Record<string, unknown> };
    expect(obj.spec).to.deep.equal({ size: 7 });
    expect(obj.status).to.deep.equal({ ready: 1, selector: 'pool=p' });
  });

  it('shows zero replicas as an empty spec; 500 when the spec path is missing; 404 for a CRD without a scale subresource', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const { group, plural } = await createScalableCrd(apiextensions, custom);
    const ref = { group, version: 'v1', plural, namespace, name: 'p' };
    await custom.createNamespacedCustomObject({
      ...ref,
      body: { apiVersion: `${group}/v1`, kind: 'Pool', metadata: { name: 'p' }, spec: { size: 0 } },
    });
    const scale = (await custom.getNamespacedCustomObjectScale(ref)) as Scale;
    expect(scale.spec).to.deep.equal({});
    expect(scale.status).to.deep.equal({ replicas: 0 });
    await custom.patchNamespacedCustomObject({ ...ref, body: { spec: { size: null } } }, asPatch.merge());
    const missingPath = await catchApiStatus(custom.getNamespacedCustomObjectScale(ref));
    expect(missingPath.code).to.equal(500);
    expect(missingPath.reason).to.equal('InternalError');
    expect(missingPath.message).to.equal('Internal error occurred: the spec replicas field ".spec.size" does not exist');
    const plain = await createTestCrd(apiextensions, custom);
    const wRef = { group: plain.group, version: plain.version, plural: plain.plural, namespace, name: 'w' };
    await custom.createNamespacedCustomObject({
      ...wRef,
      body: { apiVersion: plain.apiVersion, kind: plain.kind, metadata: { name: 'w' }, spec: {} },
    });
    const noScale = await catchApiStatus(custom.getNamespacedCustomObjectScale(wRef));
    expect(noScale.code).to.equal(404);
  });

  it('discovery lists /scale as an autoscaling/v1 Scale, for Deployments and for a CRD declaring it', async () => {
    const { apiextensions, custom, kubeConfig } = fixture();
    const expected = {
      singularName: '',
      namespaced: true,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    };
    const apps = await kubeConfig.makeApiClient(AppsV1Api).getAPIResources();
    expect(apps.resources.find((r) => r.name === 'deployments/scale')).to.deep.include(expected);
    const { group, plural } = await createScalableCrd(apiextensions, custom);
    await eventually(
      async () => {
        const list = await custom.getAPIResources({ group, version: 'v1' });
        expect(list.resources.find((r) => r.name === `${plural}/scale`)).to.deep.include(expected);
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  });
});
