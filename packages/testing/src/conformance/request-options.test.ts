import { expect } from 'chai';
import { isStatus, type ApiStatus } from '../helpers/api-status.js';
import { rawRequest } from '../helpers/raw-request.js';
import { configMapsPath, createConfigMap, useConformanceFixture } from './conformance-fixture.js';

// Invalid request options are a 422 Invalid on the options kind (group meta.k8s.io), checked
// before the body is read; the wording is kube-apiserver 1.36.3's, which users see in kubectl.
describe('conformance: request options', () => {
  const fixture = useConformanceFixture();

  async function status(method: string, path: string, body?: string): Promise<ApiStatus> {
    const response = await rawRequest(fixture().kubeConfig, {
      method,
      path,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      ...(body === undefined ? {} : { body }),
    });
    const parsed = JSON.parse(response.text) as unknown;
    expect(isStatus(parsed), `a Status body, got ${response.text.slice(0, 300)}`).to.equal(true);
    expect(response.status).to.equal((parsed as ApiStatus).code);
    return parsed as ApiStatus;
  }

  function expectInvalid(s: ApiStatus, kind: string, causes: { reason: string; field: string; message: string }[]): void {
    const listed = causes.map((c) => `${c.field}: ${c.message}`);
    expect(s).to.include({ code: 422, reason: 'Invalid' });
    expect(s.message).to.equal(`${kind}.meta.k8s.io "" is invalid: ${listed.length === 1 ? listed[0] : `[${listed.join(', ')}]`}`);
    expect(s.details).to.deep.equal({ group: 'meta.k8s.io', kind, causes });
  }

  const rvMatchForbidden = (detail: string) => ({
    reason: 'FieldValueForbidden',
    field: 'resourceVersionMatch',
    message: `Forbidden: ${detail}`,
  });

  it('a delete with both orphanDependents and propagationPolicy is refused, in the query or in the body, and deletes nothing', async () => {
    const { core, namespace } = fixture();
    const cm = await createConfigMap(core, namespace);
    const path = `${configMapsPath(namespace)}/${cm.metadata!.name!}`;
    const cause = {
      reason: 'FieldValueInvalid',
      field: 'propagationPolicy',
      message: 'Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set',
    };
    expectInvalid(await status('DELETE', `${path}?orphanDependents=true&propagationPolicy=Background`), 'DeleteOptions', [cause]);
    expectInvalid(await status('DELETE', path, '{"orphanDependents":false,"propagationPolicy":"Background"}'), 'DeleteOptions', [cause]);
    await core.readNamespacedConfigMap({ namespace, name: cm.metadata!.name! });
  });

  it('an unknown propagationPolicy lists the supported ones', async () => {
    const { core, namespace } = fixture();
    const cm = await createConfigMap(core, namespace);
    const s = await status('DELETE', `${configMapsPath(namespace)}/${cm.metadata!.name!}?propagationPolicy=Sometimes`);
    expectInvalid(s, 'DeleteOptions', [
      {
        reason: 'FieldValueNotSupported',
        field: 'propagationPolicy',
        message: 'Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"',
      },
    ]);
  });

  it('an unknown dryRun value is refused on create, update, patch and delete, naming every value sent', async () => {
    const { core, namespace } = fixture();
    const cm = await createConfigMap(core, namespace);
    const name = cm.metadata!.name!;
    const collection = configMapsPath(namespace);
    const cause = {
      reason: 'FieldValueNotSupported',
      field: 'dryRun',
      message: 'Unsupported value: ["All","Bogus"]: supported values: "All"',
    };
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    expectInvalid(await status('POST', `${collection}?dryRun=All&dryRun=Bogus`, body), 'CreateOptions', [cause]);
    expectInvalid(await status('PUT', `${collection}/${name}?dryRun=All&dryRun=Bogus`, body), 'UpdateOptions', [cause]);
    expectInvalid(await status('DELETE', `${collection}/${name}?dryRun=All&dryRun=Bogus`), 'DeleteOptions', [cause]);
    const patch = await rawRequest(fixture().kubeConfig, {
      method: 'PATCH',
      path: `${collection}/${name}?dryRun=Bogus`,
      headers: { 'content-type': 'application/merge-patch+json', accept: 'application/json' },
      body: '{"data":{"a":"b"}}',
    });
    expectInvalid(JSON.parse(patch.text) as ApiStatus, 'PatchOptions', [
      { reason: 'FieldValueNotSupported', field: 'dryRun', message: 'Unsupported value: ["Bogus"]: supported values: "All"' },
    ]);
  });

  it('an unknown fieldValidation value is refused before the body is read', async () => {
    const { namespace } = fixture();
    const s = await status('POST', `${configMapsPath(namespace)}?fieldValidation=strict`, '{not json');
    expectInvalid(s, 'CreateOptions', [
      {
        reason: 'FieldValueNotSupported',
        field: 'fieldValidation',
        message: 'Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
      },
    ]);
  });

  it('a list with resourceVersionMatch needs a resourceVersion, and Exact cannot read version "0"', async () => {
    const { namespace } = fixture();
    const list = configMapsPath(namespace);
    expectInvalid(await status('GET', `${list}?resourceVersionMatch=NotOlderThan`), 'ListOptions', [
      rvMatchForbidden('resourceVersionMatch is forbidden unless resourceVersion is provided'),
    ]);
    expectInvalid(await status('GET', `${list}?resourceVersionMatch=Exact&resourceVersion=0`), 'ListOptions', [
      rvMatchForbidden('resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
    ]);
    expectInvalid(await status('GET', `${list}?resourceVersionMatch=Newest&resourceVersion=1`), 'ListOptions', [
      {
        reason: 'FieldValueNotSupported',
        field: 'resourceVersionMatch',
        message: 'Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
      },
    ]);
    expectInvalid(await status('GET', `${list}?resourceVersionMatch=NotOlderThan&resourceVersion=1&limit=1&continue=abc`), 'ListOptions', [
      rvMatchForbidden('resourceVersionMatch is forbidden when continue is provided'),
    ]);
    expectInvalid(await status('GET', `${list}?sendInitialEvents=true`), 'ListOptions', [
      { reason: 'FieldValueForbidden', field: 'sendInitialEvents', message: 'Forbidden: sendInitialEvents is forbidden for list' },
    ]);
  });

  it('a watch with resourceVersionMatch needs sendInitialEvents, and sendInitialEvents needs NotOlderThan', async () => {
    const { namespace } = fixture();
    const watch = `${configMapsPath(namespace)}?watch=true&timeoutSeconds=1`;
    expectInvalid(await status('GET', `${watch}&resourceVersionMatch=NotOlderThan&resourceVersion=1`), 'ListOptions', [
      rvMatchForbidden('resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'),
    ]);
    expectInvalid(await status('GET', `${watch}&sendInitialEvents=true`), 'ListOptions', [
      rvMatchForbidden('sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'),
    ]);
    expectInvalid(await status('GET', `${watch}&sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1`), 'ListOptions', [
      rvMatchForbidden('sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'),
      {
        reason: 'FieldValueNotSupported',
        field: 'resourceVersionMatch',
        message: 'Unsupported value: "Exact": supported values: "NotOlderThan"',
      },
    ]);
  });

  it('a watch-list without allowWatchBookmarks is accepted: initial events, no initial-events-end bookmark', async () => {
    const { core, kubeConfig, namespace } = fixture();
    await createConfigMap(core, namespace, { name: 'present' });
    const response = await rawRequest(kubeConfig, {
      path: `${configMapsPath(namespace)}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`,
    });
    expect(response.status).to.equal(200);
    const events = response.text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { type: string; object: { metadata?: { name?: string } } });
    expect(events.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`)).to.deep.equal(['ADDED present']);
  });
});
