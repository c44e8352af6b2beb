import { expect } from 'chai';
import { AdmissionregistrationV1Api, type V1ValidatingWebhook } from '@kubernetes/client-node';
import { catchApiStatus } from '../helpers/api-status.js';
import { eventually } from '../helpers/eventually.js';
import { uniqueName } from '../helpers/unique-name.js';
import { useAdmissionWebhooks } from './admission-webhook-fixture.js';
import { createConfigMap, useConformanceFixture } from './conformance-fixture.js';

/** `matchConditions` of admission webhooks: CEL over object, oldObject and request (issue 21 item 3). */
describe('admission webhook matchConditions', function () {
  this.timeout(60_000);
  const f = useConformanceFixture();
  const { hook, install, reviews, untilCalled, server } = useAdmissionWebhooks(f);
  const denyAll = (path: string): void =>
    server().answer(path, (r) => ({ allowed: r.name?.startsWith('probe') === true, status: { code: 403, message: 'matched' } }));

  it('calls the webhook only when every condition holds', async () => {
    const path = `/conditions/${uniqueName('p')}`;
    denyAll(path);
    const matchConditions = [
      { name: 'guarded-or-probe', expression: "object.metadata.name.startsWith('guarded') || object.metadata.name.startsWith('probe')" },
      { name: 'by-a-user', expression: "request.userInfo.username != ''" },
    ];
    await install('validating', [hook('conditions', path, { matchConditions })]);
    await untilCalled(path);
    const status = await catchApiStatus(createConfigMap(f().core, f().namespace, { name: uniqueName('guarded') }));
    expect(status).to.include({ code: 403 });
    expect(status.message).to.include('denied the request: matched');
    const free = uniqueName('free');
    await createConfigMap(f().core, f().namespace, { name: free });
    expect(reviews(path, free)).to.have.length(0);
  });

  it('fails the request with 403 when a condition cannot be evaluated under failurePolicy Fail, and skips the webhook under Ignore', async () => {
    const path = `/broken/${uniqueName('p')}`;
    denyAll(path);
    // The fixture's ConfigMaps have data without a `mode` key: the condition errors on them.
    const expression = "object.data.mode == 'strict'";
    const matchConditions = [{ name: 'strict-mode', expression }];
    await install('validating', [hook('broken', path, { matchConditions })]);
    const name = uniqueName('cm');
    const status = await eventually(
      async () => {
        const s = await catchApiStatus(createConfigMap(f().core, f().namespace, { name }));
        expect(s.code).to.equal(403);
        return s;
      },
      { timeoutMs: 20_000, description: 'the configuration becoming active' },
    );
    expect(status).to.include({ reason: 'Forbidden' });
    expect(status.message, status.message).to.include(
      `configmaps "${name}" is forbidden: expression '${expression}' resulted in error: no such key: mode`,
    );
    await install('validating', [hook('ignored', path, { matchConditions, failurePolicy: 'Ignore' })]);
    // The first configuration still fails the request: remove it, then the Ignore one skips.
    const admission = f().kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    const first = (await admission.listValidatingWebhookConfiguration()).items.find(
      (c) => c.webhooks?.[0]?.name?.startsWith('broken.') && c.webhooks[0].name.endsWith(`${f().namespace}.kindex.test`),
    );
    await admission.deleteValidatingWebhookConfiguration({ name: first!.metadata!.name! });
    await eventually(() => createConfigMap(f().core, f().namespace), { timeoutMs: 20_000, description: 'only the Ignore webhook left' });
    await createConfigMap(f().core, f().namespace, { data: { mode: 'lax' } });
  });

  it('refuses a configuration whose condition does not compile, naming the field', async () => {
    const bad = hook('uncompiled', '/uncompiled', { matchConditions: [{ name: 'bad', expression: 'object.metadata.name ==' }] });
    const admission = f().kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    const status = await catchApiStatus(
      admission.createValidatingWebhookConfiguration({
        body: { metadata: { name: uniqueName('bad') }, webhooks: [bad as V1ValidatingWebhook] },
      }),
    );
    expect(status).to.include({ code: 422, reason: 'Invalid' });
    const cause = status.details?.causes?.find((c) => c.field === 'webhooks[0].matchConditions[0].expression');
    expect(cause?.message).to.include('compilation failed');
  });
});
