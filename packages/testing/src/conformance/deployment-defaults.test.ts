import { AppsV1Api, type V1Deployment } from '@kubernetes/client-node';
import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { asPatch, useConformanceFixture } from './conformance-fixture.js';

describe('conformance: Deployment defaults and validation', () => {
  const fixture = useConformanceFixture();

  function deployment(name: string, templateLabels: Record<string, string>, containers: object[]): V1Deployment {
    return {
      metadata: { name },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: templateLabels }, spec: { containers: containers as never } },
      },
    };
  }

  it('fills in the strategy, history and deadline defaults and the pod template defaults on create', async () => {
    const { kubeConfig, namespace } = fixture();
    const apps = kubeConfig.makeApiClient(AppsV1Api);
    const created = await apps.createNamespacedDeployment({
      namespace,
      body: deployment('d', { app: 'web' }, [
        { name: 'untagged', image: 'nginx', ports: [{ containerPort: 80 }] },
        { name: 'tagged', image: 'nginx:1.27' },
        { name: 'latest', image: 'registry.local:5000/nginx:latest' },
      ]),
    });
    const spec = created.spec!;
    expect(spec.replicas).to.equal(1);
    expect(spec.revisionHistoryLimit).to.equal(10);
    expect(spec.progressDeadlineSeconds).to.equal(600);
    expect(spec.strategy).to.deep.equal({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
    const pod = spec.template.spec!;
    expect(pod.restartPolicy).to.equal('Always');
    expect(pod.terminationGracePeriodSeconds).to.equal(30);
    expect(pod.dnsPolicy).to.equal('ClusterFirst');
    expect(pod.schedulerName).to.equal('default-scheduler');
    expect(pod.securityContext).to.deep.equal({});
    expect(pod.containers.map((c) => c.imagePullPolicy)).to.deep.equal(['Always', 'IfNotPresent', 'Always']);
    for (const c of pod.containers) {
      expect(c.terminationMessagePath).to.equal('/dev/termination-log');
      expect(c.terminationMessagePolicy).to.equal('File');
      expect(c.resources).to.deep.equal({});
    }
    expect(pod.containers[0]!.ports).to.deep.equal([{ containerPort: 80, protocol: 'TCP' }]);
    // Read back the same way.
    const read = await apps.readNamespacedDeployment({ namespace, name: 'd' });
    expect(read.spec).to.deep.equal(spec);
  });

  it('keeps values that were given and defaults only what is missing (Recreate has no rollingUpdate)', async () => {
    const { kubeConfig, namespace } = fixture();
    const apps = kubeConfig.makeApiClient(AppsV1Api);
    const body = deployment('d', { app: 'web' }, [{ name: 'c', image: 'nginx', imagePullPolicy: 'Never' }]);
    body.spec!.replicas = 0;
    body.spec!.revisionHistoryLimit = 2;
    body.spec!.strategy = { type: 'Recreate' };
    body.spec!.template.spec!.restartPolicy = 'Always';
    body.spec!.template.spec!.terminationGracePeriodSeconds = 5;
    const created = await apps.createNamespacedDeployment({ namespace, body });
    expect(created.spec!.replicas).to.equal(0);
    expect(created.spec!.revisionHistoryLimit).to.equal(2);
    expect(created.spec!.strategy).to.deep.equal({ type: 'Recreate' });
    expect(created.spec!.template.spec!.terminationGracePeriodSeconds).to.equal(5);
    expect(created.spec!.template.spec!.containers[0]!.imagePullPolicy).to.equal('Never');
  });

  it('defaults again on update: a merge patch removing the strategy gets it back', async () => {
    const { kubeConfig, namespace } = fixture();
    const apps = kubeConfig.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({ namespace, body: deployment('d', { app: 'web' }, [{ name: 'c', image: 'nginx:1' }]) });
    const patched = await apps.patchNamespacedDeployment(
      { namespace, name: 'd', body: { spec: { strategy: null, revisionHistoryLimit: null } } },
      asPatch.merge(),
    );
    expect(patched.spec!.strategy).to.deep.equal({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
    expect(patched.spec!.revisionHistoryLimit).to.equal(10);
  });

  it('refuses a selector that does not match the template labels with 422, as kube-apiserver words it', async () => {
    const { kubeConfig, namespace } = fixture();
    const apps = kubeConfig.makeApiClient(AppsV1Api);
    const status = await catchApiStatus(
      apps.createNamespacedDeployment({ namespace, body: deployment('d2', { tier: 'x', app: 'other' }, [{ name: 'c', image: 'nginx' }]) }),
    );
    expect(status.code).to.equal(422);
    expect(status.reason).to.equal('Invalid');
    expect(status.message).to.equal(
      'Deployment.apps "d2" is invalid: spec.template.metadata.labels: Invalid value: {"app":"other","tier":"x"}: `selector` does not match template `labels`',
    );
    expect(status.details?.causes).to.deep.equal([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.template.metadata.labels',
        message: 'Invalid value: {"app":"other","tier":"x"}: `selector` does not match template `labels`',
      },
    ]);
  });

  it('refuses an update that makes the template labels stop matching', async () => {
    const { kubeConfig, namespace } = fixture();
    const apps = kubeConfig.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({ namespace, body: deployment('d', { app: 'web' }, [{ name: 'c', image: 'nginx' }]) });
    const status = await catchApiStatus(
      apps.patchNamespacedDeployment(
        { namespace, name: 'd', body: { spec: { template: { metadata: { labels: { app: 'db' } } } } } },
        asPatch.merge(),
      ),
    );
    expect(status.code).to.equal(422);
    expect(status.details?.causes?.[0]?.field).to.equal('spec.template.metadata.labels');
    expect(status.details?.causes?.[0]?.message).to.equal('Invalid value: {"app":"db"}: `selector` does not match template `labels`');
  });
});
