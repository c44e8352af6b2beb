/**
 * Runs an operator's webhooks in-process against a cluster or test server, reached by `url`:
 * what a test (or `npm run dev` against a kind cluster) needs in a few lines.
 *
 * It lives in `@kindex/informer`, not `@kindex/testing`, because `@kindex/testing` must not
 * depend on `@kindex/informer` (informer's tests depend on testing: a cycle).
 *
 * @module
 */
import { ResourceID, type KubernetesObject } from '@kindex/core';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../client/kube-client.js';
import { Crds, MutatingConfigurations, ValidatingConfigurations } from './internal/webhook-kinds.js';
import { webhookManifest, type WebhookManifest } from './webhook-manifest.js';
import type { WebhookServer } from './webhook-server.js';

/**
 * Options of {@link startLocalWebhooks}.
 *
 * @example
 * ```ts
 * import type { LocalWebhooksOptions } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const options: LocalWebhooksOptions = { kubeConfig, name: 'webpages-test-1' };
 * ```
 */
export interface LocalWebhooksOptions {
  /** Where to install the configurations (an admin: it creates cluster-scoped objects). */
  readonly kubeConfig: KubeConfig;
  /** Name of the configurations; unique per test when tests share a server. Defaults to `kindex-operator`. */
  readonly name?: string;
}

/** {@link LocalWebhooksOptions}' keys and value checks. */
const LOCAL_WEBHOOKS_OPTIONS = defineOptions<LocalWebhooksOptions>('startLocalWebhooks options', {
  kubeConfig: Type.Unknown(),
  name: Type.Optional(Type.String({ minLength: 1, description: 'a non-empty name' })),
});

/**
 * Webhooks served in-process and installed on the server; `dispose()` removes them.
 *
 * @example
 * ```ts
 * import { startLocalWebhooks, type LocalWebhooks, type WebhookServer } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const webhooks: WebhookServer;
 * declare const kubeConfig: KubeConfig;
 *
 * const local: LocalWebhooks = await startLocalWebhooks(webhooks, { kubeConfig });
 * console.log(local.manifest.yaml);
 * await local.dispose();
 * ```
 */
export interface LocalWebhooks {
  /** The webhook server's base URL the configurations point at. */
  readonly url: string;
  /** What was installed (the conversion stanzas were merged into their CRDs). */
  readonly manifest: WebhookManifest;
  /** Deletes the configurations, sets the CRDs' conversion back to what it was, and closes the server if this call opened it. */
  dispose(): Promise<void>;
}

/**
 * Starts `webhooks` on its port (generating a CA and certificate when it has none), installs
 * the Validating/MutatingWebhookConfigurations pointing at it by `url` with the CA as
 * `caBundle`, and sets each conversion webhook's CRD to call it.
 *
 * Caveats: the API server picks configurations up from a watch, so the first write after this
 * resolves may still miss a webhook for a moment: retry it (`eventually` of `@kindex/testing`).
 * The server must be reachable from the API server: with a real kube-apiserver on the same
 * machine, listen on `127.0.0.1`.
 *
 * @example
 * ```ts
 * import { Operator, startLocalWebhooks, type ResourceKind } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 * declare const WebPages: ResourceKind;
 *
 * const operator = new Operator({ kubeConfig, webhooks: { port: 0, host: '127.0.0.1' } });
 * operator.webhooks!.validating({ kind: WebPages, validate: () => ({ allowed: false, message: 'read-only today' }) });
 * const local = await startLocalWebhooks(operator.webhooks!, { kubeConfig });
 * try {
 *   // ... create a WebPage and expect the refusal
 * } finally {
 *   await local.dispose();
 * }
 * ```
 */
export async function startLocalWebhooks(webhooks: WebhookServer, options: LocalWebhooksOptions): Promise<LocalWebhooks> {
  LOCAL_WEBHOOKS_OPTIONS.check(options);
  const opened = webhooks.url === undefined;
  await webhooks.listen();
  const url = webhooks.url!;
  const caCert = webhooks.caCert;
  const manifest = webhookManifest(webhooks.admissionWebhooks, webhooks.conversionWebhooks, {
    url,
    ...(caCert !== undefined ? { caBundle: caCert } : {}),
    ...(options.name !== undefined ? { name: options.name } : {}),
  });
  const client = new KubeClient(options.kubeConfig);
  const installed: (() => Promise<unknown>)[] = [];
  const dispose = async (): Promise<void> => {
    for (const undo of installed.splice(0).reverse()) await undo();
    if (opened) await webhooks.close();
  };
  try {
    for (const [object, kind] of [
      [manifest.validating, ValidatingConfigurations],
      [manifest.mutating, MutatingConfigurations],
    ] as const) {
      if (object === undefined) continue;
      const id = ResourceID.of((object.metadata as { name: string }).name);
      await client.delete(kind, id); // a leftover of a crashed run
      await client.create(kind, object);
      installed.push(() => client.delete(kind, id));
    }
    for (const { crd, conversion } of manifest.conversions) {
      const id = ResourceID.of(crd);
      const before = (await client.get<KubernetesObject & { spec?: { conversion?: unknown } }>(Crds, id))?.spec?.conversion ?? {
        strategy: 'None',
      };
      await client.patch(Crds, id, { spec: { conversion } });
      installed.push(() => client.patch(Crds, id, { spec: { conversion: { webhook: null, ...before } } }));
    }
  } catch (error) {
    await dispose();
    throw error;
  }
  return { url, manifest, dispose };
}
