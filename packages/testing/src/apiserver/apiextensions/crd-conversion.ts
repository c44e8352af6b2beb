// Conversion of custom resources by their CRD's conversion webhook (`spec.conversion.strategy:
// Webhook`), as apiextensions-apiserver's webhookConverter does it: one ConversionReview per
// object or list, only the objects not already in the desired version sent, the answer checked
// (uid, count, apiVersion, kind) and the original metadata kept except labels and annotations.
// Objects are stored in the storage version; `strategy: None` only rewrites apiVersion and needs
// nothing from here.

import { randomUUID } from 'node:crypto';
import type { Json, ObjectStore } from '../storage/object-store.js';
import type { ResourceType } from '../storage/resource-registry.js';
import { ApiStatusError } from '../storage/status-error.js';
import { WebhookCallError, type WebhookHttpClient, type WebhookTarget } from '../webhook/webhook-http-client.js';

const CRDS = 'apiextensions.k8s.io/customresourcedefinitions';
// kube-apiserver sets no timeout of its own on conversion calls; its REST client's default is 30 s.
const CONVERSION_TIMEOUT_SECONDS = 30;

/** Where a CRD's conversion webhook is and which ConversionReview version it reads (undefined: none we send). */
export interface ConversionWebhook extends WebhookTarget {
  readonly reviewVersion: string | undefined;
}

/** A conversion webhook failed or answered something unusable. */
class ConversionFailure extends Error {
  override readonly name = 'ConversionFailure';
}

/** Converts custom resources between versions through their CRD's conversion webhook. */
export class CrdConversion {
  constructor(
    private readonly store: ObjectStore,
    private readonly http: WebhookHttpClient,
  ) {}

  /**
   * The webhook that converts `t`'s objects, when its CRD has `strategy: Webhook`; undefined
   * when objects of `version` need no call (another strategy, or the storage version itself).
   */
  webhookFor(t: ResourceType, version: string): ConversionWebhook | undefined {
    return version === t.storageVersion ? undefined : this.webhookOf(t);
  }

  /** Whether `t`'s CRD converts its objects by webhook. */
  converts(t: ResourceType): boolean {
    return this.webhookOf(t) !== undefined;
  }

  private webhookOf(t: ResourceType): ConversionWebhook | undefined {
    if (!t.custom) return undefined;
    const crd = this.store.get(CRDS, `${t.resource}.${t.group}`)?.obj;
    const conversion = ((crd?.['spec'] as Json | undefined)?.['conversion'] ?? {}) as Json;
    if (conversion['strategy'] !== 'Webhook') return undefined;
    const webhook = (conversion['webhook'] ?? {}) as Json;
    const versions = Array.isArray(webhook['conversionReviewVersions']) ? (webhook['conversionReviewVersions'] as string[]) : [];
    return {
      clientConfig: webhook['clientConfig'] ?? {},
      timeoutSeconds: CONVERSION_TIMEOUT_SECONDS,
      reviewVersion: ['v1', 'v1beta1'].find((v) => versions.includes(v)),
    };
  }

  /**
   * `objects` in `version` (apiVersion `group/version`); throws the 500 kube-apiserver answers
   * when the webhook fails.
   */
  async convert(t: ResourceType, objects: readonly Json[], version: string): Promise<Json[]> {
    const desired = `${t.group}/${version}`;
    const pending = objects.map((o, i) => [o, i] as const).filter(([o]) => o['apiVersion'] !== desired);
    const out = [...objects];
    if (pending.length === 0) return out;
    const from = String(pending[0]![0]['apiVersion'] ?? '');
    const webhook = this.webhookOf(t);
    const gvk = `${from}, Kind=${t.kind}`;
    try {
      if (webhook === undefined) throw new ConversionFailure('the CRD has no conversion webhook');
      const converted = await this.call(
        webhook,
        pending.map(([o]) => o),
        desired,
      );
      if (converted.length !== pending.length) {
        throw new ApiStatusError(
          500,
          'InternalError',
          `conversion webhook for ${gvk} returned ${converted.length} objects, expected ${pending.length}`,
        );
      }
      converted.forEach((c, j) => {
        const [original, index] = pending[j]!;
        out[index] = checked(original, c, desired, t.kind, j, gvk);
      });
    } catch (e) {
      if (e instanceof ApiStatusError) throw internalError(e.message);
      throw internalError(`conversion webhook for ${gvk} failed: ${(e as Error).message}`);
    }
    return out;
  }

  private async call(webhook: ConversionWebhook, objects: Json[], desired: string): Promise<Json[]> {
    if (webhook.reviewVersion === undefined) throw new ConversionFailure('no supported conversion review versions');
    const uid = randomUUID();
    const apiVersion = `apiextensions.k8s.io/${webhook.reviewVersion}`;
    let answer: Json;
    try {
      answer = await this.http.call(webhook, {
        apiVersion,
        kind: 'ConversionReview',
        request: { uid, desiredAPIVersion: desired, objects },
      });
    } catch (e) {
      if (e instanceof WebhookCallError) throw new ConversionFailure(e.message.replace(/^failed to call webhook: /, ''));
      throw e;
    }
    if (answer['apiVersion'] !== apiVersion || answer['kind'] !== 'ConversionReview') {
      throw new ConversionFailure(
        `expected webhook response of ${apiVersion}, Kind=ConversionReview, got ${String(answer['apiVersion'] ?? '')}, Kind=${String(answer['kind'] ?? '')}`,
      );
    }
    const response = answer['response'] as Json | undefined;
    if (response === undefined || response === null) throw new ConversionFailure('no response provided');
    if (response['uid'] !== uid) throw new ConversionFailure(`expected response.uid="${uid}", got "${String(response['uid'] ?? '')}"`);
    const result = (response['result'] ?? {}) as Json;
    if (result['status'] !== 'Success') {
      const message = typeof result['message'] === 'string' && result['message'] !== '' ? `: ${result['message']}` : '';
      throw new ConversionFailure(`response.result.status was '${String(result['status'] ?? '')}', not 'Success'${message}`);
    }
    return Array.isArray(response['convertedObjects']) ? (response['convertedObjects'] as Json[]) : [];
  }
}

// The answer's object in the desired version, with the original's metadata except its labels and
// annotations (a webhook may change those, nothing else of metadata).
function checked(original: Json, converted: Json, desired: string, kind: string, index: number, gvk: string): Json {
  const invalid = (why: string): ApiStatusError =>
    new ApiStatusError(500, 'InternalError', `conversion webhook for ${gvk} returned invalid converted object at index ${index}: ${why}`);
  if (converted === null || typeof converted !== 'object') throw invalid('not an object');
  if (converted['apiVersion'] !== desired) {
    throw invalid(`invalid groupVersion (expected ${desired}, received ${String(converted['apiVersion'] ?? '')})`);
  }
  if (converted['kind'] !== kind) throw invalid(`invalid kind (expected ${kind}, received ${String(converted['kind'] ?? '')})`);
  const meta = { ...((original['metadata'] ?? {}) as Json) };
  const answered = (converted['metadata'] ?? {}) as Json;
  for (const field of ['labels', 'annotations']) {
    if (answered[field] === undefined || answered[field] === null) delete meta[field];
    else meta[field] = answered[field];
  }
  return { ...converted, metadata: meta };
}

function internalError(message: string): ApiStatusError {
  return new ApiStatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}
