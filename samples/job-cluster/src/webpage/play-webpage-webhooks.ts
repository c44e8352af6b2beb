/**
 * The webhooks part of `pnpm sample -- --webpage` (on a server that calls webhooks): the
 * operator serves the WebPage's webhooks on 127.0.0.1, installs them by url, then writes and
 * reads WebPages at both versions. Returns what the server answered.
 */
import { ResourceID } from '@kindex/core';
import { KubeApiError, KubeClient, Operator, startLocalWebhooks } from '@kindex/informer';
import type { KubeConfig } from '@kubernetes/client-node';
import { CrdKind } from './play-webpage.js';
import { WebPageKind, type WebPage } from './webpage-model.js';
import { WEBPAGE_CRD_WITH_V2, WebPageV2Kind, registerWebPageWebhooks, type WebPageV2 } from './webpage-webhooks.js';

/** What the API server answered. */
export interface WebPageWebhookFigures {
  /** A v1 WebPage read as v2. */
  readonly readAsV2: WebPageV2;
  /** A WebPage created as v2, read as v1. */
  readonly v2ReadAsV1: WebPage;
  /** The refusal of a v1 WebPage with a script. */
  readonly deniedV1: string;
  /** The refusal of a v2 WebPage with a script (validated as v1 after conversion). */
  readonly deniedV2: string;
}

async function refusal(write: Promise<unknown>): Promise<string> {
  try {
    await write;
  } catch (error) {
    if (error instanceof KubeApiError) return error.message;
    throw error;
  }
  return 'admitted';
}

/** Waits until `check` passes: the API server picks up webhook configurations from a watch. */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function playWebPageWebhooks(
  kubeConfig: KubeConfig,
  namespace: string,
  log: (line: string) => void = () => {},
): Promise<WebPageWebhookFigures> {
  const client = new KubeClient(kubeConfig, { fieldManager: 'webpage-scenario' });
  log('install the WebPage CRD with v2 served beside v1 (v1 stored)');
  await client.apply(CrdKind, WEBPAGE_CRD_WITH_V2, { fieldManager: 'kindex-webpage-sample', force: true });
  const operator = new Operator({ kubeConfig, webhooks: { port: 0, host: '127.0.0.1' } });
  registerWebPageWebhooks(operator.webhooks!);
  const local = await startLocalWebhooks(operator.webhooks!, { kubeConfig, name: `webpage-sample-${namespace}` });
  log(`webhooks served at ${local.url}; configurations installed with the generated CA`);
  try {
    const page = (name: string, html: string): WebPage => ({
      apiVersion: 'sample.javaoperatorsdk/v1',
      kind: 'WebPage',
      metadata: { name, namespace },
      spec: { html, exposed: true },
    });
    const deniedV1 = await until('the validating webhook is active', async () => {
      const answer = await refusal(client.create(WebPageKind, page(`scripted-${Date.now().toString(36)}`, '<script>alert(1)</script>')));
      return answer === 'admitted' ? undefined : answer;
    });
    log(`create v1 with a script: ${deniedV1}`);
    await client.create(WebPageKind, page('converted', '<h1>Hello</h1>'));
    const readAsV2 = await until('v2 is served through the conversion webhook', () =>
      client.get<WebPageV2>(WebPageV2Kind, ResourceID.of('converted', namespace)).catch(() => undefined),
    );
    log(`read converted (created as v1) as v2: spec ${JSON.stringify(readAsV2.spec)}`);
    const v2 = (name: string, html: string): WebPageV2 => ({
      apiVersion: 'sample.javaoperatorsdk/v2',
      kind: 'WebPage',
      metadata: { name, namespace },
      spec: { content: { html }, exposure: 'Internal' },
    });
    const deniedV2 = await refusal(client.create(WebPageV2Kind, v2('scripted-v2', '<SCRIPT src=x>')));
    log(`create v2 with a script: ${deniedV2}`);
    await client.create(WebPageV2Kind, v2('internal', '<p>staff only</p>'));
    const v2ReadAsV1 = (await client.get<WebPage>(WebPageKind, ResourceID.of('internal', namespace)))!;
    log(`create internal as v2, read it as v1: spec ${JSON.stringify(v2ReadAsV1.spec)}`);
    return { readAsV2, v2ReadAsV1, deniedV1, deniedV2 };
  } finally {
    await local.dispose();
    await client.registry?.stopAll();
  }
}
