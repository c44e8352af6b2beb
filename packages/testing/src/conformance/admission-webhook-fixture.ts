// Shared set-up of the admission webhook conformance files: a test webhook server for the file,
// webhooks scoped to the running test's namespace, configurations removed after each test, and a
// wait for kube-apiserver to pick a configuration up (it does from a watch, a moment later).
import { expect } from 'chai';
import { AdmissionregistrationV1Api, type V1MutatingWebhook, type V1ValidatingWebhook } from '@kubernetes/client-node';
import { eventually } from '../helpers/eventually.js';
import { uniqueName } from '../helpers/unique-name.js';
import { startTestWebhookServer, type ReceivedReview, type TestWebhookServer } from './admission-webhook-server.js';
import { createConfigMap, type ConformanceFixture } from './conformance-fixture.js';

/** One webhook of a configuration, as the tests write it. */
export type Hook = Partial<V1ValidatingWebhook & V1MutatingWebhook> & { name: string };

/** What {@link useAdmissionWebhooks} gives a file; valid inside tests and hooks only. */
export interface AdmissionWebhooksFixture {
  readonly server: () => TestWebhookServer;
  /** Undo steps run (and emptied) after each test. */
  readonly cleanups: (() => Promise<unknown>)[];
  /** A webhook for the ConfigMaps of the running test's namespace, reached on `path` of the test server. */
  readonly hook: (name: string, path: string, extra?: Partial<Hook>) => Hook;
  /** Creates a configuration of `hooks`, deleted after the test. */
  readonly install: (kind: 'validating' | 'mutating', hooks: Hook[], name?: string) => Promise<void>;
  /** The reviews `path` received, of the object `name` when given. */
  readonly reviews: (path: string, name?: string) => ReceivedReview[];
  /** Retries a ConfigMap create until the webhook on `path` saw one. */
  readonly untilCalled: (path: string) => Promise<void>;
}

/** Registers the hooks of an admission webhook file. */
export function useAdmissionWebhooks(f: () => ConformanceFixture): AdmissionWebhooksFixture {
  let server: TestWebhookServer | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  before(async () => {
    server = await startTestWebhookServer();
  });
  after(async () => server?.close());
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c().catch(() => undefined);
  });
  const webhooks = (): TestWebhookServer => {
    if (server === undefined) throw new Error('the webhook server is only available inside tests');
    return server;
  };
  const reviews = (path: string, name?: string): ReceivedReview[] =>
    (webhooks().received.get(path) ?? []).filter((r) => name === undefined || r.name === name);
  return {
    server: webhooks,
    cleanups,
    hook: (name, path, extra = {}) => ({
      name: `${name}.${f().namespace}.kindex.test`,
      clientConfig: { url: `${webhooks().url}${path}`, caBundle: webhooks().caBundle },
      rules: [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': f().namespace } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      ...extra,
    }),
    install: async (kind, hooks, name = uniqueName(kind)) => {
      const admission = f().kubeConfig.makeApiClient(AdmissionregistrationV1Api);
      const body = { metadata: { name }, webhooks: hooks as V1ValidatingWebhook[] };
      if (kind === 'validating') {
        await admission.createValidatingWebhookConfiguration({ body });
        cleanups.push(() => admission.deleteValidatingWebhookConfiguration({ name }));
      } else {
        await admission.createMutatingWebhookConfiguration({ body });
        cleanups.push(() => admission.deleteMutatingWebhookConfiguration({ name }));
      }
    },
    reviews,
    untilCalled: async (path) => {
      await eventually(
        async () => {
          const name = uniqueName('probe');
          await createConfigMap(f().core, f().namespace, { name }).catch(() => undefined);
          expect(reviews(path, name), `the webhook on ${path} is not called yet`).to.have.length.above(0);
        },
        { timeoutMs: 20_000, description: `the webhook on ${path} becoming active` },
      );
    },
  };
}
