import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { asPatch, useConformanceFixture } from './conformance-fixture.js';

// The real tier runs with --service-cluster-ip-range=10.0.0.0/24; the embedded server uses the same.
const IN_RANGE = /^10\.0\.0\.(\d+)$/;

describe('conformance: Service defaults and cluster IPs', () => {
  const fixture = useConformanceFixture();

  it('allocates a cluster IP from the service range and fills in the defaults', async () => {
    const { core, namespace } = fixture();
    const created = await core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: 's' },
        spec: {
          selector: { app: 'x' },
          ports: [
            { name: 'a', port: 80 },
            { name: 'b', port: 81, targetPort: 'http' },
          ],
        },
      },
    });
    const spec = created.spec!;
    expect(spec.clusterIP).to.match(IN_RANGE);
    expect(spec.clusterIPs).to.deep.equal([spec.clusterIP]);
    expect(spec.type).to.equal('ClusterIP');
    expect(spec.sessionAffinity).to.equal('None');
    expect(spec.internalTrafficPolicy).to.equal('Cluster');
    expect(spec.ipFamilies).to.deep.equal(['IPv4']);
    expect(spec.ipFamilyPolicy).to.equal('SingleStack');
    expect(spec.ports).to.deep.equal([
      { name: 'a', port: 80, protocol: 'TCP', targetPort: 80 },
      { name: 'b', port: 81, protocol: 'TCP', targetPort: 'http' },
    ]);
    const read = await core.readNamespacedService({ namespace, name: 's' });
    expect(read.spec).to.deep.equal(spec);
  });

  it('allocates for an empty clusterIP, and gives different Services different IPs', async () => {
    const { core, namespace } = fixture();
    const ips = new Set<string>();
    for (const name of ['a', 'b', 'c', 'd']) {
      const s = await core.createNamespacedService({
        namespace,
        body: { metadata: { name }, spec: { clusterIP: '', ports: [{ port: 80 }] } },
      });
      expect(s.spec!.clusterIP).to.match(IN_RANGE);
      ips.add(s.spec!.clusterIP!);
    }
    expect(ips.size).to.equal(4);
  });

  it('keeps None (headless); without a selector the families are dual-stack as on kube-apiserver', async () => {
    const { core, namespace } = fixture();
    const headless = await core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'h' }, spec: { clusterIP: 'None', ports: [{ port: 80 }] } },
    });
    expect(headless.spec!.clusterIP).to.equal('None');
    expect(headless.spec!.clusterIPs).to.deep.equal(['None']);
    expect(headless.spec!.ipFamilyPolicy).to.equal('RequireDualStack');
    expect(headless.spec!.ipFamilies).to.deep.equal(['IPv4', 'IPv6']);
  });

  it('takes an asked-for free IP in range; refuses a taken one and one out of range with 422', async () => {
    const { core, namespace } = fixture();
    const first = await core.createNamespacedService({ namespace, body: { metadata: { name: 'first' }, spec: { ports: [{ port: 80 }] } } });
    const taken = first.spec!.clusterIP!;
    const dup = await catchApiStatus(
      core.createNamespacedService({ namespace, body: { metadata: { name: 'dup' }, spec: { clusterIP: taken, ports: [{ port: 80 }] } } }),
    );
    expect(dup.code).to.equal(422);
    expect(dup.message).to.equal(
      `Service "dup" is invalid: spec.clusterIPs: Invalid value: ["${taken}"]: failed to allocate IP ${taken}: provided IP is already allocated`,
    );
    expect(dup.details?.causes?.[0]?.field).to.equal('spec.clusterIPs');
    const out = await catchApiStatus(
      core.createNamespacedService({
        namespace,
        body: { metadata: { name: 'out' }, spec: { clusterIP: '10.9.0.5', ports: [{ port: 80 }] } },
      }),
    );
    expect(out.code).to.equal(422);
    expect(out.reason).to.equal('Invalid');
    expect(out.message).to.equal(
      'Service "out" is invalid: spec.clusterIPs: Invalid value: ["10.9.0.5"]: failed to allocate IP 10.9.0.5: the provided network does not match the current range',
    );
  });

  it('keeps the cluster IP on a PUT that leaves it out, and refuses to change it with 422', async () => {
    const { core, namespace } = fixture();
    const created = await core.createNamespacedService({ namespace, body: { metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } } });
    const ip = created.spec!.clusterIP!;
    const replaced = await core.replaceNamespacedService({
      namespace,
      name: 's',
      body: { metadata: { name: 's', resourceVersion: created.metadata!.resourceVersion }, spec: { ports: [{ port: 81 }] } },
    });
    expect(replaced.spec!.clusterIP).to.equal(ip);
    expect(replaced.spec!.clusterIPs).to.deep.equal([ip]);
    expect(replaced.spec!.ports).to.deep.equal([{ port: 81, protocol: 'TCP', targetPort: 81 }]);
    const other = ip === '10.0.0.99' ? '10.0.0.98' : '10.0.0.99';
    for (const body of [{ spec: { clusterIP: other } }, { spec: { clusterIP: other, clusterIPs: [other] } }]) {
      const status = await catchApiStatus(core.patchNamespacedService({ namespace, name: 's', body }, asPatch.merge()));
      expect(status.code).to.equal(422);
      expect(status.message).to.equal(`Service "s" is invalid: spec.clusterIPs[0]: Invalid value: ["${other}"]: may not change once set`);
      expect(status.details?.causes).to.deep.equal([
        { reason: 'FieldValueInvalid', field: 'spec.clusterIPs[0]', message: `Invalid value: ["${other}"]: may not change once set` },
      ]);
    }
    expect((await core.readNamespacedService({ namespace, name: 's' })).spec!.clusterIP).to.equal(ip);
  });
});
