import { expect } from 'chai';
import { AdmissionregistrationV1Api, AppsV1Api, type V1ValidatingWebhook } from '@kubernetes/client-node';
import { catchApiStatus, type ApiStatus } from '../helpers/api-status.js';
import { eventually } from '../helpers/eventually.js';
import { rawRequest } from '../helpers/raw-request.js';
import { uniqueName } from '../helpers/unique-name.js';
import { useAdmissionWebhooks } from './admission-webhook-fixture.js';
import { jsonPatch, startTestWebhookServer, type TestWebhookServer } from './admission-webhook-server.js';
import { asPatch, configMapsPath, createConfigMap, useConformanceFixture } from './conformance-fixture.js';

/**
 * Admission webhooks called by the API server: a webhook served on 127.0.0.1,
 * reached by `url` and verified against `caBundle`, admits the ConfigMaps of the test's namespace.
 */
describe('admission webhooks', function () {
  this.timeout(60_000);
  const f = useConformanceFixture();
  const { hook, install, reviews, untilCalled, cleanups, server } = useAdmissionWebhooks(f);
  let webhooks: TestWebhookServer;
  let admission: AdmissionregistrationV1Api;
  beforeEach(() => {
    webhooks = server();
    admission = f().kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  });

  // A webhook that fails every call cannot be probed: retry a create until it fails with `code`.
  const firstFailure = (code: number): Promise<ApiStatus> =>
    eventually(
      async () => {
        const s = await catchApiStatus(createConfigMap(f().core, f().namespace));
        expect(s.code).to.equal(code);
        return s;
      },
      { timeoutMs: 20_000, description: 'the webhook becoming active' },
    );

  it('refuses a write the validating webhook denies, with its status code and message', async () => {
    const path = `/deny/${uniqueName('p')}`;
    webhooks.answer(path, (r) =>
      r.object?.['data'] !== undefined ? { allowed: false, status: { code: 403, message: 'data is read-only here' } } : { allowed: true },
    );
    await install('validating', [hook('deny', path)]);
    await untilCalled(path);
    const status = await catchApiStatus(createConfigMap(f().core, f().namespace, { data: { a: '1' } }));
    expect(status.code).to.equal(403);
    expect(status.message).to.equal(`admission webhook "deny.${f().namespace}.kindex.test" denied the request: data is read-only here`);
  });

  it('answers 400 "without explanation" for a denial without code or message', async () => {
    const path = `/bare/${uniqueName('p')}`;
    webhooks.answer(path, (r) => ({ allowed: r.name?.startsWith('probe') === true }));
    await install('validating', [hook('bare', path)]);
    await untilCalled(path);
    const status = await catchApiStatus(createConfigMap(f().core, f().namespace, { name: uniqueName('cm') }));
    expect(status.code).to.equal(400);
    expect(status.message).to.equal(`admission webhook "bare.${f().namespace}.kindex.test" denied the request without explanation`);
  });

  it('sends the AdmissionReview fields: uid, kinds, resources, name, namespace, operation, user, objects, options', async () => {
    const path = `/review/${uniqueName('p')}`;
    await install('validating', [hook('review', path)]);
    await untilCalled(path);
    const name = uniqueName('cm');
    await createConfigMap(f().core, f().namespace, { name, data: { a: '1' } });
    await f().core.patchNamespacedConfigMap({ name, namespace: f().namespace, body: { data: { a: '2' } } }, asPatch.merge());
    await f().core.deleteNamespacedConfigMap({ name, namespace: f().namespace });
    const [create, update, del] = reviews(path, name);
    const resource = { group: '', version: 'v1', resource: 'configmaps' };
    const kind = { group: '', version: 'v1', kind: 'ConfigMap' };
    expect(create).to.deep.include({
      kind,
      resource,
      requestKind: kind,
      name,
      namespace: f().namespace,
      operation: 'CREATE',
      dryRun: false,
    });
    expect(create!.uid).to.match(/^[0-9a-f-]{36}$/);
    expect(create!.userInfo.username).to.be.a('string').and.not.equal('');
    expect(create!.userInfo.groups).to.include('system:authenticated');
    expect(create!.object).to.deep.include({ data: { a: '1' } });
    expect(create!.oldObject).to.equal(null);
    expect(create!.options).to.deep.include({ kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
    expect(update).to.deep.include({ operation: 'UPDATE', name });
    expect(update!.object).to.deep.include({ data: { a: '2' } });
    expect(update!.oldObject).to.deep.include({ data: { a: '1' } });
    // A patch is admitted as an update, with UpdateOptions.
    expect(update!.options).to.deep.include({ kind: 'UpdateOptions' });
    expect(del).to.deep.include({ operation: 'DELETE', name, object: null });
    expect(del!.oldObject).to.deep.include({ data: { a: '2' } });
    expect(del!.options).to.deep.include({ kind: 'DeleteOptions' });
  });

  it('admits each object of a deletecollection as a DELETE, and refuses the collection when one is denied', async () => {
    const path = `/collection/${uniqueName('p')}`;
    webhooks.answer(path, (r) =>
      r.operation === 'DELETE' && (r.oldObject?.['metadata'] as { labels?: Record<string, string> }).labels?.['keep'] === 'yes'
        ? { allowed: false, status: { code: 403, message: 'kept' } }
        : { allowed: true },
    );
    await install('validating', [hook('collection', path)]);
    await untilCalled(path);
    const { core, namespace } = f();
    const loose = [uniqueName('loose'), uniqueName('loose')];
    for (const name of loose) await createConfigMap(core, namespace, { name, labels: { group: 'loose' } });
    await core.deleteCollectionNamespacedConfigMap({ namespace, labelSelector: 'group=loose' });
    // Each object's review names no object (the request has no name); oldObject is the object.
    const deletes = reviews(path).filter((r) => r.operation === 'DELETE');
    for (const name of loose) {
      const review = deletes.find((r) => (r.oldObject?.['metadata'] as { name?: string } | undefined)?.name === name);
      expect(review, `no DELETE review of ${name}`).to.not.equal(undefined);
      expect(review).to.deep.include({ namespace, object: null });
      expect(review!.name).to.equal(undefined);
      expect(await catchApiStatus(core.readNamespacedConfigMap({ name, namespace }))).to.include({ code: 404 });
    }
    const kept = uniqueName('kept');
    await createConfigMap(core, namespace, { name: kept, labels: { group: 'kept', keep: 'yes' } });
    const status = await catchApiStatus(core.deleteCollectionNamespacedConfigMap({ namespace, labelSelector: 'group=kept' }));
    expect(status.code).to.equal(403);
    expect(status.message).to.equal(`admission webhook "collection.${namespace}.kindex.test" denied the request: kept`);
    expect((await core.readNamespacedConfigMap({ name: kept, namespace })).metadata?.name).to.equal(kept);
  });

  it('admits a /scale write with the Scale (autoscaling/v1) as the object', async () => {
    const path = `/scale/${uniqueName('p')}`;
    webhooks.answer(path, (r) =>
      ((r.object?.['spec'] as { replicas?: number } | undefined)?.replicas ?? 0) > 5
        ? { allowed: false, status: { code: 403, message: 'at most 5 replicas' } }
        : { allowed: true },
    );
    const rules = [{ operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments/scale'] }];
    await install('validating', [hook('scale', path, { rules })]);
    const { kubeConfig, namespace } = f();
    const apps = kubeConfig.makeApiClient(AppsV1Api);
    const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    await apps.createNamespacedDeployment({
      namespace,
      body: { metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'web' } }, template } },
    });
    const scaleTo = (replicas: number) =>
      apps.patchNamespacedDeploymentScale({ namespace, name: 'd', body: { spec: { replicas } } }, asPatch.merge());
    const status = await eventually(
      async () => {
        const s = await catchApiStatus(scaleTo(9));
        expect(s.code).to.equal(403);
        return s;
      },
      { timeoutMs: 20_000, description: 'the scale webhook active' },
    );
    expect(status.message).to.equal(`admission webhook "scale.${namespace}.kindex.test" denied the request: at most 5 replicas`);
    expect((await scaleTo(3)).spec?.replicas).to.equal(3);
    const review = reviews(path, 'd').at(-1)!;
    expect(review).to.deep.include({
      kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      subResource: 'scale',
      operation: 'UPDATE',
    });
    expect(review.object).to.deep.include({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 3 } });
    expect(review.oldObject).to.deep.include({ kind: 'Scale' });
  });

  it('applies the mutating webhook’s JSON patch before the object is validated and stored', async () => {
    const path = `/mutate/${uniqueName('p')}`;
    webhooks.answer(path, () => ({ allowed: true, ...jsonPatch([{ op: 'add', path: '/data', value: { defaulted: 'yes' } }]) }));
    const seen = `/seen/${uniqueName('p')}`;
    await install('mutating', [
      hook('mutate', path, { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }),
    ]);
    await install('validating', [hook('seen', seen)]);
    await untilCalled(path);
    await untilCalled(seen);
    const name = uniqueName('cm');
    const created = await createConfigMap(f().core, f().namespace, { name });
    expect(created.data).to.deep.equal({ defaulted: 'yes' });
    expect(reviews(seen, name)[0]!.object).to.deep.include({ data: { defaulted: 'yes' } });
    // The rule names CREATE only: an update is not patched.
    const updated = await f().core.replaceNamespacedConfigMap({
      name,
      namespace: f().namespace,
      body: { ...created, data: { mine: '1' } },
    });
    expect(updated.data).to.deep.equal({ mine: '1' });
  });

  it('calls a webhook with reinvocationPolicy IfNeeded again when a later webhook changed the object', async () => {
    const first = `/first/${uniqueName('p')}`;
    const second = `/second/${uniqueName('p')}`;
    webhooks.answer(first, () => ({ allowed: true }));
    webhooks.answer(second, (r) =>
      (r.object?.['metadata'] as { labels?: object }).labels === undefined
        ? { allowed: true, ...jsonPatch([{ op: 'add', path: '/metadata/labels', value: { second: 'was-here' } }]) }
        : { allowed: true },
    );
    await install('mutating', [hook('first', first, { reinvocationPolicy: 'IfNeeded' }), hook('second', second)]);
    await untilCalled(second);
    const name = uniqueName('cm');
    const created = await createConfigMap(f().core, f().namespace, { name });
    expect(created.metadata?.labels).to.deep.equal({ second: 'was-here' });
    const calls = reviews(first, name);
    expect(calls).to.have.length(2);
    expect(calls[1]!.object?.['metadata']).to.have.nested.property('labels.second', 'was-here');
    expect(reviews(second, name)).to.have.length(1);
  });

  it('sends the first AdmissionReview version the webhook lists that it knows', async () => {
    const path = `/beta/${uniqueName('p')}`;
    await install('validating', [hook('beta', path, { admissionReviewVersions: ['v9', 'v1beta1'] })]);
    await untilCalled(path);
    expect(new Set(webhooks.reviewVersions.get(path))).to.deep.equal(new Set(['admission.k8s.io/v1beta1']));
  });

  it('passes the webhook’s warnings on as Warning headers', async () => {
    const path = `/warn/${uniqueName('p')}`;
    webhooks.answer(path, () => ({ allowed: true, warnings: ['this ConfigMap is watched'] }));
    await install('validating', [hook('warn', path)]);
    await untilCalled(path);
    const { namespace } = f();
    const response = await rawRequest(f().kubeConfig, {
      method: 'POST',
      path: configMapsPath(namespace),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniqueName('cm') } }),
    });
    expect(response.status).to.equal(201);
    expect(response.headers['warning']).to.equal('299 - "this ConfigMap is watched"');
  });

  it('skips webhooks whose namespaceSelector or objectSelector does not match', async () => {
    const path = `/selected/${uniqueName('p')}`;
    webhooks.answer(path, () => ({ allowed: false, status: { code: 403, message: 'selected' } }));
    await install('validating', [hook('selected', path, { objectSelector: { matchLabels: { guarded: 'true' } } })]);
    await eventually(
      async () => {
        const status = await catchApiStatus(createConfigMap(f().core, f().namespace, { labels: { guarded: 'true' } }));
        expect(status.code).to.equal(403);
      },
      { timeoutMs: 20_000, description: 'the webhook becoming active' },
    );
    await createConfigMap(f().core, f().namespace, { labels: { guarded: 'false' } });
    await createConfigMap(f().core, 'default', { name: uniqueName('cm'), labels: { guarded: 'true' } }).then((cm) =>
      f().core.deleteNamespacedConfigMap({ name: cm.metadata!.name!, namespace: 'default' }),
    );
  });

  it('fails the write when a webhook with failurePolicy Fail cannot be called, and ignores it under Ignore', async () => {
    // A port nothing listens on: the server just closed it.
    const closed = await startTestWebhookServer();
    const url = `${closed.url}/gone`;
    await closed.close();
    await install('validating', [hook('gone', '/gone', { clientConfig: { url, caBundle: webhooks.caBundle } })]);
    const status = await firstFailure(500);
    expect(status.reason).to.equal('InternalError');
    const port = new URL(url).port;
    expect(status.message).to.equal(
      `Internal error occurred: failed calling webhook "gone.${f().namespace}.kindex.test": failed to call webhook: Post "${url}?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    for (const c of cleanups.splice(0)) await c();
    await install('validating', [hook('gone', '/gone', { clientConfig: { url, caBundle: webhooks.caBundle }, failurePolicy: 'Ignore' })]);
    await eventually(() => createConfigMap(f().core, f().namespace), { timeoutMs: 20_000, description: 'Ignore taking over' });
  });

  it('gives up on a webhook after timeoutSeconds', async () => {
    const path = `/slow/${uniqueName('p')}`;
    webhooks.answer(path, async (r) => {
      if (r.name?.startsWith('slow') === true) await new Promise((resolve) => setTimeout(resolve, 2500));
      return { allowed: true };
    });
    await install('validating', [hook('slow', path, { timeoutSeconds: 1 })]);
    await untilCalled(path);
    const status = await catchApiStatus(createConfigMap(f().core, f().namespace, { name: uniqueName('slow') }));
    expect(status.code).to.equal(500);
    expect(status.message).to.include(
      `failed calling webhook "slow.${f().namespace}.kindex.test": failed to call webhook: Post "${webhooks.url}${path}?timeout=1s"`,
    );
    expect(status.message).to.include('context deadline exceeded');
  });

  it('refuses a certificate the caBundle does not sign', async () => {
    const other = await startTestWebhookServer();
    cleanups.push(() => other.close());
    const path = `/untrusted/${uniqueName('p')}`;
    await install('validating', [hook('untrusted', path, { clientConfig: { url: `${webhooks.url}${path}`, caBundle: other.caBundle } })]);
    const status = await firstFailure(500);
    expect(status.message).to.include('tls: failed to verify certificate: x509: certificate signed by unknown authority');
    expect(reviews(path)).to.have.length(0);
  });

  it('calls a webhook on a dry run, telling it so (v1 webhooks declare no side effects)', async () => {
    const path = `/dry/${uniqueName('p')}`;
    await install('validating', [hook('dry', path)]);
    await untilCalled(path);
    const name = uniqueName('cm');
    await f().core.createNamespacedConfigMap({ namespace: f().namespace, dryRun: 'All', body: { metadata: { name } } });
    expect(reviews(path, name)[0]).to.deep.include({ dryRun: true });
    expect(reviews(path, name)[0]!.options).to.deep.include({ dryRun: ['All'] });
    expect(await catchApiStatus(f().core.readNamespacedConfigMap({ name, namespace: f().namespace }))).to.include({ code: 404 });
  });

  it('stores a configuration with kube-apiserver’s defaults', async () => {
    const name = uniqueName('defaults');
    const { failurePolicy: _f, matchPolicy: _m, namespaceSelector: _n, ...bare } = hook('defaults', '/defaults');
    await install('mutating', [bare], name);
    const read = await admission.readMutatingWebhookConfiguration({ name });
    expect(read.webhooks?.[0]).to.deep.include({
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      reinvocationPolicy: 'Never',
    });
    expect(read.webhooks?.[0]?.rules?.[0]?.scope).to.equal('*');
    expect(read.metadata?.generation).to.equal(1);
  });

  it('refuses an invalid configuration with a 422 naming each field', async () => {
    const name = uniqueName('invalid');
    const bad = hook('bad', '/bad', {
      sideEffects: 'Some',
      timeoutSeconds: 31,
      clientConfig: { url: 'http://127.0.0.1:1/bad' },
      admissionReviewVersions: ['v9'],
    });
    const status = await catchApiStatus(
      admission.createValidatingWebhookConfiguration({ body: { metadata: { name }, webhooks: [bad as V1ValidatingWebhook] } }),
    );
    expect(status).to.include({ code: 422, reason: 'Invalid' });
    const causes = Object.fromEntries((status.details?.causes ?? []).map((c) => [c.field, c.message]));
    expect(causes).to.deep.include({
      'webhooks[0].sideEffects': 'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].timeoutSeconds': 'Invalid value: 31: the timeout value must be between 1 and 30 seconds',
      'webhooks[0].clientConfig.url': `Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
    });
    expect(causes['webhooks[0].admissionReviewVersions']).to.include('must include at least one of v1, v1beta1');
  });

  describe('on a custom resource with two versions and a status subresource', () => {
    let group: string;
    const pagesAt = (version: string, name = '', sub = ''): string =>
      `/apis/${group}/${version}/namespaces/${f().namespace}/pages${name === '' ? '' : `/${name}`}${sub}`;
    const send = (method: string, path: string, body: unknown, contentType = 'application/json'): ReturnType<typeof rawRequest> =>
      rawRequest(f().kubeConfig, { method, path, headers: { 'content-type': contentType }, body: JSON.stringify(body) });
    const page = (version: string, name: string): Record<string, unknown> => ({
      apiVersion: `${group}/${version}`,
      kind: 'Page',
      metadata: { name },
      spec: { title: 'home' },
    });
    const rule = (resources: string[], extra: Record<string, unknown> = {}) => ({
      operations: ['CREATE', 'UPDATE'],
      apiGroups: [group],
      apiVersions: ['v1'],
      resources,
      ...extra,
    });

    beforeEach(async () => {
      group = `${uniqueName('adm')}.kindex.test`;
      const schema = {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      };
      const versions = ['v1', 'v2'].map((name) => ({ name, served: true, storage: name === 'v1', schema, subresources: { status: {} } }));
      const created = await send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `pages.${group}` },
        spec: { group, scope: 'Namespaced', names: { plural: 'pages', singular: 'page', kind: 'Page', listKind: 'PageList' }, versions },
      });
      expect(created.status, created.text).to.equal(201);
      await eventually(async () => expect((await rawRequest(f().kubeConfig, { path: pagesAt('v2') })).status).to.equal(200), {
        timeoutMs: 30_000,
        description: 'serving v2',
      });
      cleanups.push(() =>
        rawRequest(f().kubeConfig, { method: 'DELETE', path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/pages.${group}` }),
      );
    });

    // Waits until a create of the kind through `version` reaches the webhook on `path`.
    async function untilPageCalled(path: string, version = 'v1'): Promise<void> {
      await eventually(
        async () => {
          const name = uniqueName('probe');
          await send('POST', pagesAt(version), page(version, name));
          expect(reviews(path, name), `the webhook on ${path} is not called yet`).to.have.length.above(0);
        },
        { timeoutMs: 20_000, description: `the webhook on ${path} becoming active` },
      );
    }

    it('matchPolicy Equivalent calls a v1 webhook for a v2 request, with the object in v1; Exact does not', async () => {
      const equivalent = `/equivalent/${uniqueName('p')}`;
      const exact = `/exact/${uniqueName('p')}`;
      await install('validating', [
        hook('equivalent', equivalent, { rules: [rule(['pages'])] }),
        hook('exact', exact, { rules: [rule(['pages'])], matchPolicy: 'Exact' }),
      ]);
      await untilPageCalled(equivalent);
      await untilPageCalled(exact);
      const name = uniqueName('v2');
      const created = await send('POST', pagesAt('v2'), page('v2', name));
      expect(created.status, created.text).to.equal(201);
      const [review] = reviews(equivalent, name);
      expect(review).to.deep.include({
        kind: { group, version: 'v1', kind: 'Page' },
        resource: { group, version: 'v1', resource: 'pages' },
        requestKind: { group, version: 'v2', kind: 'Page' },
      });
      expect(review!.object).to.deep.include({ apiVersion: `${group}/v1` });
      expect(reviews(exact, name)).to.have.length(0);
    });

    it('a rule for pages/status admits status writes only; a Cluster-scoped rule skips namespaced objects', async () => {
      const status = `/status/${uniqueName('p')}`;
      const cluster = `/cluster/${uniqueName('p')}`;
      const all = `/all/${uniqueName('p')}`;
      await install('validating', [
        hook('status', status, { rules: [rule(['pages/status'])] }),
        hook('cluster', cluster, { rules: [rule(['*'], { scope: 'Cluster' })] }),
        hook('all', all, { rules: [rule(['pages'], { scope: 'Namespaced' })] }),
      ]);
      await untilPageCalled(all);
      const name = uniqueName('page');
      const created = JSON.parse((await send('POST', pagesAt('v1'), page('v1', name))).text) as Record<string, unknown>;
      const statusWrite = await send('PUT', pagesAt('v1', name, '/status'), { ...created, status: { ready: true } });
      expect(statusWrite.status, statusWrite.text).to.equal(200);
      // One configuration: its webhooks became active together, with the probe's.
      expect(reviews(status, name).map((r) => [r.operation, r.subResource])).to.deep.equal([['UPDATE', 'status']]);
      expect(reviews(all, name).map((r) => r.operation)).to.deep.equal(['CREATE']);
      expect(reviews(cluster)).to.have.length(0);
    });
  });
});
