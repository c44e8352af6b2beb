// events.k8s.io/v1 Events: one storage with core/v1 Events, fields mapped between the versions as
// kube-apiserver maps them, and the strict validation and MicroTime decoding of events.k8s.io/v1.
import { expect } from 'chai';
import { rawRequest } from '../helpers/raw-request.js';
import { useConformanceFixture } from './conformance-fixture.js';

type Json = Record<string, unknown>;

describe('conformance: events.k8s.io/v1 Events', () => {
  const fixture = useConformanceFixture();

  async function send(method: string, path: string, body?: unknown, contentType = 'application/json') {
    const response = await rawRequest(fixture().kubeConfig, {
      method,
      path,
      headers: { 'content-type': contentType },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: JSON.parse(response.text) as Json };
  }
  const v1Path = (name = '') => `/apis/events.k8s.io/v1/namespaces/${fixture().namespace}/events${name ? `/${name}` : ''}`;
  const corePath = (name = '') => `/api/v1/namespaces/${fixture().namespace}/events${name ? `/${name}` : ''}`;
  const withoutMeta = ({ metadata: _m, ...rest }: Json): Json => rest;

  function event(name: string): Json {
    const namespace = fixture().namespace;
    return {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name },
      eventTime: '2026-11-25T18:00:00.123456Z',
      reportingController: 'example.com/web',
      reportingInstance: 'pod-0',
      action: 'Reconcile',
      reason: 'Synced',
      type: 'Normal',
      note: 'hello',
      regarding: { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'web', uid: 'u1' },
      related: { apiVersion: 'v1', kind: 'Secret', namespace, name: 's' },
    };
  }

  it('an Event written as events.k8s.io/v1 reads back in both versions, fields mapped as kube-apiserver maps them', async () => {
    const sent = event('web.1');
    const created = await send('POST', v1Path(), sent);
    expect(created.status, JSON.stringify(created.json)).to.equal(201);
    const { metadata: _m, ...content } = sent;
    const asV1 = { ...content, deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null };
    expect(withoutMeta(created.json)).to.deep.equal(asV1);
    expect(withoutMeta((await send('GET', v1Path('web.1'))).json)).to.deep.equal(asV1);
    const core = await send('GET', corePath('web.1'));
    expect(withoutMeta(core.json)).to.deep.equal({
      kind: 'Event',
      apiVersion: 'v1',
      involvedObject: sent['regarding'],
      reason: 'Synced',
      message: 'hello',
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      type: 'Normal',
      eventTime: '2026-11-25T18:00:00.123456Z',
      action: 'Reconcile',
      related: sent['related'],
      reportingComponent: 'example.com/web',
      reportingInstance: 'pod-0',
    });
  });

  it('a merge patch of series through events.k8s.io/v1 shows in both versions', async () => {
    await send('POST', v1Path(), event('web.2'));
    const series = { count: 3, lastObservedTime: '2026-11-25T18:00:05.000001Z' };
    const patched = await send('PATCH', v1Path('web.2'), { series }, 'application/merge-patch+json');
    expect(patched.status, JSON.stringify(patched.json)).to.equal(200);
    expect(patched.json['series']).to.deep.equal(series);
    expect((await send('GET', corePath('web.2'))).json['series']).to.deep.equal(series);
  });

  it('an Event written as core/v1 reads as events.k8s.io/v1 with its old fields under deprecated*', async () => {
    const namespace = fixture().namespace;
    const legacy = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'old.1' },
      involvedObject: { kind: 'ConfigMap', namespace, name: 'web' },
      reason: 'Old',
      message: 'legacy',
      type: 'Normal',
      count: 2,
      firstTimestamp: '2026-11-25T18:00:00Z',
      lastTimestamp: '2026-11-25T18:01:00Z',
      source: { component: 'kubelet', host: 'n1' },
    };
    expect((await send('POST', corePath(), legacy)).status).to.equal(201);
    const read = await send('GET', v1Path('old.1'));
    expect(withoutMeta(read.json)).to.deep.equal({
      kind: 'Event',
      apiVersion: 'events.k8s.io/v1',
      eventTime: null,
      reason: 'Old',
      regarding: legacy.involvedObject,
      note: 'legacy',
      type: 'Normal',
      deprecatedSource: legacy.source,
      deprecatedFirstTimestamp: legacy.firstTimestamp,
      deprecatedLastTimestamp: legacy.lastTimestamp,
      deprecatedCount: 2,
    });
    const list = await send('GET', v1Path());
    expect(list.json).to.include({ kind: 'EventList', apiVersion: 'events.k8s.io/v1' });
    expect((list.json['items'] as Json[]).map((i) => (i['metadata'] as Json)['name'])).to.deep.equal(['old.1']);
  });

  it('refuses an events.k8s.io/v1 create without eventTime (422)', async () => {
    const { eventTime: _t, ...sent } = event('web.3');
    const answer = await send('POST', v1Path(), sent);
    expect(answer.status).to.equal(422);
    expect(answer.json['message']).to.equal('Event "web.3" is invalid: eventTime: Required value');
    expect((answer.json['details'] as Json)['causes']).to.deep.equal([
      { reason: 'FieldValueRequired', message: 'Required value', field: 'eventTime' },
    ]);
  });

  it("refuses an eventTime with JavaScript's millisecond precision (400: MicroTime needs six digits)", async () => {
    const answer = await send('POST', v1Path(), { ...event('web.4'), eventTime: '2026-11-25T18:00:00.123Z' });
    expect(answer.status).to.equal(400);
    // The tail is Go's time.Parse error: check the parts that name the value and the layout.
    expect(answer.json['message'])
      .to.include('Event in version "v1" cannot be handled as a Event: parsing time "2026-11-25T18:00:00.123Z"')
      .and.include('"2006-01-02T15:04:05.000000Z07:00"');
  });

  it('names every field the strict validation refuses, in kube-apiserver order', async () => {
    const sent = {
      ...event('web.5'),
      type: 'Bad',
      reportingController: 'Not Valid!',
      action: '',
      series: { count: 1, lastObservedTime: '2026-11-25T18:00:05.000001Z' },
    };
    const answer = await send('POST', v1Path(), sent);
    expect(answer.status).to.equal(422);
    const causes = (answer.json['details'] as Json)['causes'] as Json[];
    expect(causes.map((c) => c['field'])).to.deep.equal(['reportingController', 'action', 'series.count', 'type']);
    expect(causes[3]!['message']).to.equal('Invalid value: "": has invalid value: Bad');
  });

  it('a watch of events.k8s.io/v1 shows Events as events.k8s.io/v1', async () => {
    const before = (await send('GET', v1Path())).json['metadata'] as Json;
    await send('POST', v1Path(), event('web.6'));
    const response = await rawRequest(fixture().kubeConfig, {
      path: `${v1Path()}?watch=true&timeoutSeconds=1&resourceVersion=${String(before['resourceVersion'])}`,
    });
    const lines = response.text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Json);
    const added = lines.find((l) => l['type'] === 'ADDED')?.['object'] as Json | undefined;
    expect(added, response.text).to.include({ kind: 'Event', apiVersion: 'events.k8s.io/v1', note: 'hello' });
    expect(added).to.not.have.property('message');
  });

  it('discovery lists events in events.k8s.io/v1', async () => {
    const list = await send('GET', '/apis/events.k8s.io/v1');
    const resources = list.json['resources'] as Json[];
    expect(resources.find((r) => r['name'] === 'events')).to.deep.include({ kind: 'Event', namespaced: true, shortNames: ['ev'] });
  });
});
