import { expect } from 'chai';
import type { ApiStatus } from '../helpers/api-status.js';
import { rawRequest } from '../helpers/raw-request.js';
import { uniqueName } from '../helpers/unique-name.js';
import { useConformanceFixture } from './conformance-fixture.js';

// Lease times are metav1.MicroTime: kube-apiserver parses them with Go's RFC3339Micro layout, so
// JavaScript's toISOString() (three fractional digits) is a 400, and stores them in UTC.
describe('conformance: Lease validation', () => {
  const fixture = useConformanceFixture();

  async function createLease(
    spec: Record<string, unknown>,
    name = uniqueName('lease'),
  ): Promise<{ status: number; body: ApiStatus & { spec?: Record<string, unknown> } }> {
    const { kubeConfig, namespace } = fixture();
    const response = await rawRequest(kubeConfig, {
      method: 'POST',
      path: `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec }),
    });
    return { status: response.status, body: JSON.parse(response.text) as ApiStatus & { spec?: Record<string, unknown> } };
  }

  const layout = '"2006-01-02T15:04:05.000000Z07:00"';

  it("refuses a time with milliseconds (JavaScript's toISOString) with Go's parse error", async () => {
    const { status, body } = await createLease({ holderIdentity: 'a', renewTime: '2026-11-25T18:00:00.123Z' });
    expect(status).to.equal(400);
    expect(body).to.include({
      reason: 'BadRequest',
      message: `Lease in version "v1" cannot be handled as a Lease: parsing time "2026-11-25T18:00:00.123Z" as ${layout}: cannot parse ".123Z" as ".000000"`,
    });
  });

  it('refuses times without fraction, with seven digits, or not times at all', async () => {
    const cases: [string, string][] = [
      ['2026-11-25T18:00:00Z', 'cannot parse "Z" as ".000000"'],
      ['2026-11-25T18:00:00.1234567Z', 'cannot parse "7Z" as "Z07:00"'],
      ['yesterday', 'cannot parse "yesterday" as "2006"'],
      ['2026/11/25T18:00:00.000000Z', 'cannot parse "/11/25T18:00:00.000000Z" as "-"'],
    ];
    for (const [time, detail] of cases) {
      const { body } = await createLease({ acquireTime: time });
      expect(body.message, time).to.equal(
        `Lease in version "v1" cannot be handled as a Lease: parsing time ${JSON.stringify(time)} as ${layout}: ${detail}`,
      );
    }
    const { body } = await createLease({ acquireTime: '2026-13-25T18:00:00.000000Z' });
    expect(body.message).to.equal(
      'Lease in version "v1" cannot be handled as a Lease: parsing time "2026-13-25T18:00:00.000000Z": month out of range',
    );
  });

  it('stores microsecond times in UTC', async () => {
    const { status, body } = await createLease({
      renewTime: '2026-11-25T18:00:00.123456Z',
      acquireTime: '2026-11-25T18:00:00.123456+02:00',
    });
    expect(status).to.equal(201);
    expect(body.spec).to.deep.include({ renewTime: '2026-11-25T18:00:00.123456Z', acquireTime: '2026-11-25T16:00:00.123456Z' });
  });

  it('refuses a leaseDurationSeconds that is not positive and negative leaseTransitions, with 422', async () => {
    const name = uniqueName('lease');
    const { status, body } = await createLease({ leaseDurationSeconds: 0, leaseTransitions: -1 }, name);
    expect(status).to.equal(422);
    const causes = [
      { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0', field: 'spec.leaseDurationSeconds' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.leaseTransitions' },
    ];
    expect(body).to.include({
      reason: 'Invalid',
      message: `Lease.coordination.k8s.io "${name}" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]`,
    });
    expect(body.details).to.deep.equal({ name, group: 'coordination.k8s.io', kind: 'Lease', causes });
  });

  it('refuses a millisecond time in a merge patch (422 on the patch) and in an apply (500), in a PUT (400)', async () => {
    const { kubeConfig, namespace } = fixture();
    const name = uniqueName('lease');
    expect((await createLease({ holderIdentity: 'a' }, name)).status).to.equal(201);
    const path = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${name}`;
    const parseError = `parsing time "2026-11-25T18:00:00.123Z" as ${layout}: cannot parse ".123Z" as ".000000"`;
    const send = async (method: string, contentType: string, body: unknown, query = '') =>
      JSON.parse(
        (
          await rawRequest(kubeConfig, {
            method,
            path: `${path}${query}`,
            headers: { 'content-type': contentType, accept: 'application/json' },
            body: JSON.stringify(body),
          })
        ).text,
      ) as ApiStatus;
    const merge = await send('PATCH', 'application/merge-patch+json', { spec: { renewTime: '2026-11-25T18:00:00.123Z' } });
    expect(merge).to.include({ code: 422, reason: 'Invalid' });
    expect(merge.message).to.match(/^ "" is invalid: patch: Invalid value: "\{.*\}": /);
    expect(merge.message?.endsWith(`}": ${parseError}`)).to.equal(true);
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name },
      spec: { renewTime: '2026-11-25T18:00:00.123Z' },
    };
    expect(await send('PATCH', 'application/apply-patch+yaml', lease, '?fieldManager=test')).to.include({
      code: 500,
      message: `failed to convert new object (/${name}; coordination.k8s.io/v1, Kind=Lease) to proper version: unable to convert unstructured object to coordination.k8s.io/v1, Kind=Lease: ${parseError}`,
    });
    expect(await send('PUT', 'application/json', lease)).to.include({
      code: 400,
      message: `Lease in version "v1" cannot be handled as a Lease: ${parseError}`,
    });
  });
});
