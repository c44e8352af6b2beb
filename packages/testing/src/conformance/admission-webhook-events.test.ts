import { expect } from 'chai';
import { eventually } from '../helpers/eventually.js';
import { rawRequest } from '../helpers/raw-request.js';
import { uniqueName } from '../helpers/unique-name.js';
import { jsonPatch } from './admission-webhook-server.js';
import { useAdmissionWebhooks } from './admission-webhook-fixture.js';
import { useConformanceFixture } from './conformance-fixture.js';

type Json = Record<string, unknown>;

/**
 * Admission of events.k8s.io/v1 Events: kube-apiserver admits them like any resource, with the
 * objects in events.k8s.io/v1, although they share their storage with core/v1 Events.
 */
describe('admission webhooks on events.k8s.io/v1 Events', function () {
  this.timeout(60_000);
  const f = useConformanceFixture();
  const { hook, install, reviews, server } = useAdmissionWebhooks(f);
  const eventsAt = (name = ''): string => `/apis/events.k8s.io/v1/namespaces/${f().namespace}/events${name === '' ? '' : `/${name}`}`;
  const rules = [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: ['events.k8s.io'], apiVersions: ['v1'], resources: ['events'] }];
  const send = async (method: string, path: string, body?: unknown, contentType = 'application/json') => {
    const r = await rawRequest(f().kubeConfig, {
      method,
      path,
      headers: { 'content-type': contentType },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: r.status, json: JSON.parse(r.text) as Json };
  };
  const event = (name: string, note = 'hello'): Json => ({
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name },
    eventTime: '2026-11-25T18:00:00.123456Z',
    reportingController: 'example.com/web',
    reportingInstance: 'pod-0',
    action: 'Reconcile',
    reason: 'Synced',
    type: 'Normal',
    note,
    regarding: { apiVersion: 'v1', kind: 'ConfigMap', namespace: f().namespace, name: 'web' },
  });
  // Retries an events.k8s.io/v1 create until the webhook on `path` saw one.
  const untilEventCalled = (path: string): Promise<void> =>
    eventually(
      async () => {
        const name = uniqueName('probe');
        await send('POST', eventsAt(), event(name));
        expect(reviews(path, name), `the webhook on ${path} is not called yet`).to.have.length.above(0);
      },
      { timeoutMs: 20_000, description: `the webhook on ${path} becoming active` },
    );

  it('calls a validating webhook for events.k8s.io/v1 with the object in that version, and refuses what it denies', async () => {
    const path = `/events/${uniqueName('p')}`;
    server().answer(path, (r) =>
      (r.object?.['note'] ?? '') === 'forbidden' ? { allowed: false, status: { code: 403, message: 'no such notes' } } : { allowed: true },
    );
    await install('validating', [hook('events', path, { rules, matchPolicy: 'Exact' })]);
    await untilEventCalled(path);

    const name = uniqueName('ev');
    const created = await send('POST', eventsAt(), event(name));
    expect(created.status, JSON.stringify(created.json)).to.equal(201);
    const [review] = reviews(path, name);
    expect(review).to.deep.include({
      kind: { group: 'events.k8s.io', version: 'v1', kind: 'Event' },
      resource: { group: 'events.k8s.io', version: 'v1', resource: 'events' },
      operation: 'CREATE',
    });
    expect(review!.object).to.deep.include({ apiVersion: 'events.k8s.io/v1', note: 'hello', reportingController: 'example.com/web' });

    const refused = await send('POST', eventsAt(), event(uniqueName('ev'), 'forbidden'));
    expect(refused.status).to.equal(403);
    expect(refused.json['message']).to.equal(`admission webhook "events.${f().namespace}.kindex.test" denied the request: no such notes`);

    const patched = await send('PATCH', eventsAt(name), { metadata: { labels: { seen: 'yes' } } }, 'application/merge-patch+json');
    expect(patched.status, JSON.stringify(patched.json)).to.equal(200);
    const update = reviews(path, name).find((r) => r.operation === 'UPDATE');
    expect(update?.object?.['metadata']).to.deep.include({ labels: { seen: 'yes' } });
    expect(update?.oldObject).to.deep.include({ apiVersion: 'events.k8s.io/v1', note: 'hello' });

    expect((await send('DELETE', eventsAt(name))).status).to.equal(200);
    const deleted = reviews(path, name).find((r) => r.operation === 'DELETE');
    expect(deleted?.oldObject).to.deep.include({ apiVersion: 'events.k8s.io/v1', note: 'hello' });
  });

  it('stores what a mutating webhook patched into an events.k8s.io/v1 Event', async () => {
    const path = `/events-mutate/${uniqueName('p')}`;
    server().answer(path, (r) =>
      r.operation === 'CREATE'
        ? { allowed: true, ...jsonPatch([{ op: 'replace', path: '/note', value: 'rewritten' }]) }
        : { allowed: true },
    );
    await install('mutating', [hook('events-mutate', path, { rules, matchPolicy: 'Exact' })]);
    await untilEventCalled(path);

    const name = uniqueName('ev');
    const created = await send('POST', eventsAt(), event(name));
    expect(created.status, JSON.stringify(created.json)).to.equal(201);
    expect(created.json['note']).to.equal('rewritten');
    const core = await send('GET', `/api/v1/namespaces/${f().namespace}/events/${name}`);
    expect(core.json['message']).to.equal('rewritten');
  });

  it('calls a core/v1 events webhook (matchPolicy Equivalent) for an events.k8s.io/v1 write with the object as core/v1, and the other way round', async () => {
    const corePath = `/core-events/${uniqueName('p')}`;
    const v1Path = `/v1-events/${uniqueName('p')}`;
    const coreRules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['events'] }];
    await install('validating', [
      hook('core-events', corePath, { rules: coreRules, matchPolicy: 'Equivalent' }),
      hook('v1-events', v1Path, { rules, matchPolicy: 'Equivalent' }),
    ]);
    await untilEventCalled(corePath);

    const name = uniqueName('ev');
    expect((await send('POST', eventsAt(), event(name))).status).to.equal(201);
    const [asCore] = reviews(corePath, name);
    expect(asCore).to.deep.include({
      kind: { group: '', version: 'v1', kind: 'Event' },
      resource: { group: '', version: 'v1', resource: 'events' },
      requestKind: { group: 'events.k8s.io', version: 'v1', kind: 'Event' },
    });
    expect(asCore!.object).to.deep.include({ apiVersion: 'v1', kind: 'Event', message: 'hello', reportingComponent: 'example.com/web' });
    expect(reviews(v1Path, name)).to.have.length(1);

    const coreName = uniqueName('core');
    const core = await send('POST', `/api/v1/namespaces/${f().namespace}/events`, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: coreName },
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', namespace: f().namespace, name: 'web' },
      reason: 'Synced',
      message: 'from core',
      type: 'Normal',
    });
    expect(core.status, JSON.stringify(core.json)).to.equal(201);
    const [asV1] = reviews(v1Path, coreName);
    expect(asV1).to.deep.include({
      kind: { group: 'events.k8s.io', version: 'v1', kind: 'Event' },
      resource: { group: 'events.k8s.io', version: 'v1', resource: 'events' },
      requestKind: { group: '', version: 'v1', kind: 'Event' },
    });
    expect(asV1!.object).to.deep.include({ apiVersion: 'events.k8s.io/v1', kind: 'Event', note: 'from core' });
  });

  it('stores the patch of a core/v1 events mutating webhook (matchPolicy Equivalent) in an events.k8s.io/v1 write', async () => {
    const path = `/core-mutate/${uniqueName('p')}`;
    server().answer(path, () => ({ allowed: true, ...jsonPatch([{ op: 'replace', path: '/message', value: 'patched as core' }]) }));
    const coreRules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['events'] }];
    await install('mutating', [hook('core-mutate', path, { rules: coreRules })]);
    await untilEventCalled(path);

    const name = uniqueName('ev');
    const created = await send('POST', eventsAt(), event(name));
    expect(created.status, JSON.stringify(created.json)).to.equal(201);
    expect(created.json).to.deep.include({
      apiVersion: 'events.k8s.io/v1',
      note: 'patched as core',
      reportingController: 'example.com/web',
    });
  });
});
