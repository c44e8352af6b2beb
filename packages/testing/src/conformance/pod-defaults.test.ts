import { expect } from 'chai';
import { useConformanceFixture } from './conformance-fixture.js';

describe('conformance: Pod defaults', () => {
  const fixture = useConformanceFixture();

  it('gives Pods the pod spec and container defaults a Deployment template gets', async () => {
    const { core, namespace } = fixture();
    const pod = await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'p' },
        spec: {
          initContainers: [{ name: 'init', image: 'busybox:1.36' }],
          containers: [
            { name: 'untagged', image: 'nginx', ports: [{ containerPort: 80 }] },
            { name: 'digest', image: 'nginx@sha256:0000000000000000000000000000000000000000000000000000000000000000' },
          ],
        },
      },
    });
    const spec = pod.spec!;
    expect(spec).to.deep.include({ restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst' });
    expect(spec.schedulerName).to.equal('default-scheduler');
    expect(spec.securityContext).to.deep.equal({});
    const containers = [...(spec.initContainers ?? []), ...spec.containers];
    expect(containers.map((c) => c.imagePullPolicy)).to.deep.equal(['IfNotPresent', 'Always', 'IfNotPresent']);
    for (const c of containers) {
      expect(c).to.deep.include({ terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
      expect(c.resources).to.deep.equal({});
    }
    expect(spec.containers[0]!.ports).to.deep.equal([{ containerPort: 80, protocol: 'TCP' }]);
  });
});
