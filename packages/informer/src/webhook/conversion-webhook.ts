/**
 * CRD conversion through a hub version, as controller-runtime's `conversion.Hub`: each other
 * version (a spoke) says how it converts to the hub and back, and a conversion between two
 * spokes goes through the hub, so N versions need 2(N-1) functions instead of N(N-1).
 *
 * @module
 */
import type { KubernetesObject } from '@kindex/core';
import { WebhookConfigError } from './webhook-errors.js';

/**
 * How one spoke version converts to the hub version and back. Both functions get a copy they
 * may change; `apiVersion` and metadata other than labels and annotations are set by kindex.
 *
 * @example
 * ```ts
 * import type { SpokeConversion } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * type V1 = KubernetesObject & { spec: { url: string } };
 * type V2 = KubernetesObject & { spec: { host: string; path: string } };
 *
 * const v1: SpokeConversion<V1, V2> = {
 *   toHub: (o) => { const u = new URL(o.spec.url); return { ...o, spec: { host: u.host, path: u.pathname } }; },
 *   fromHub: (o) => ({ ...o, spec: { url: `https://${o.spec.host}${o.spec.path}` } }),
 * };
 * ```
 */
export interface SpokeConversion<S extends KubernetesObject = KubernetesObject, H extends KubernetesObject = KubernetesObject> {
  /** Converts an object of this version to the hub version. */
  toHub(spoke: S): H;
  /** Converts an object of the hub version to this version. */
  fromHub(hub: H): S;
}

/**
 * A conversion webhook for one CRD: the hub version and one {@link SpokeConversion} per other
 * version it serves.
 *
 * Caveats: conversions must round-trip (spoke → hub → spoke gives the same object), or a read
 * and write at another version loses fields; keep what a version cannot express in an annotation.
 *
 * @example
 * ```ts
 * import type { ConversionWebhook } from '@kindex/informer';
 *
 * const webPages: ConversionWebhook = {
 *   group: 'sample.kindex.dev',
 *   plural: 'webpages',
 *   kind: 'WebPage',
 *   hub: 'v2',
 *   spokes: {
 *     v1: {
 *       toHub: (o) => ({ ...o, spec: { ...(o as { spec?: object }).spec, migrated: true } }),
 *       fromHub: (o) => o,
 *     },
 *   },
 * };
 * ```
 */
export interface ConversionWebhook {
  readonly group: string;
  /** The CRD's plural: its name is `<plural>.<group>`. */
  readonly plural: string;
  readonly kind: string;
  /** The version every conversion goes through (usually the storage version). */
  readonly hub: string;
  /** The other versions, by name (`v1`, `v1beta1`). */
  readonly spokes: Readonly<Record<string, SpokeConversion<KubernetesObject, KubernetesObject>>>;
}

/** Checks a conversion webhook's shape, naming the field and the fix. */
export function validateConversionWebhook(webhook: ConversionWebhook): void {
  for (const field of ['group', 'plural', 'kind', 'hub'] as const) {
    if (typeof webhook?.[field] !== 'string' || webhook[field] === '') {
      throw new WebhookConfigError(
        `conversion webhook ${webhook?.plural ?? '?'}.${webhook?.group ?? '?'}`,
        field,
        'give a non-empty string',
      );
    }
  }
  const name = `conversion webhook ${webhook.plural}.${webhook.group}`;
  if (typeof webhook.spokes !== 'object' || webhook.spokes === null || Object.keys(webhook.spokes).length === 0) {
    throw new WebhookConfigError(name, 'spokes', 'give at least one other version with its toHub and fromHub functions');
  }
  for (const [version, spoke] of Object.entries(webhook.spokes)) {
    if (version === webhook.hub)
      throw new WebhookConfigError(name, `spokes.${version}`, `the hub version ${webhook.hub} needs no conversion: remove it`);
    for (const fn of ['toHub', 'fromHub'] as const) {
      if (typeof spoke?.[fn] !== 'function') throw new WebhookConfigError(name, `spokes.${version}.${fn}`, 'give a function');
    }
  }
}

/**
 * Converts one object to `desiredApiVersion` through the hub. Throws naming the object when a
 * version is not served. Keeps uid, name, namespace and every metadata field but labels and
 * annotations, as the API server requires of a conversion webhook.
 */
export function convertThroughHub(webhook: ConversionWebhook, object: KubernetesObject, desiredApiVersion: string): KubernetesObject {
  const from = versionOf(webhook, object.apiVersion);
  const to = versionOf(webhook, desiredApiVersion);
  const where = `${webhook.kind} ${object.metadata?.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata?.name ?? '<no name>'}`;
  if (from === undefined)
    throw new Error(`${where}: apiVersion ${object.apiVersion} is not ${webhook.group}/<a version the webhook converts>`);
  if (to === undefined)
    throw new Error(`${where}: desiredAPIVersion ${desiredApiVersion} is not ${webhook.group}/<a version the webhook converts>`);
  let result: KubernetesObject = structuredClone(object);
  if (from !== to) {
    const hub = from === webhook.hub ? result : { ...webhook.spokes[from]!.toHub(result), apiVersion: `${webhook.group}/${webhook.hub}` };
    result = to === webhook.hub ? hub : webhook.spokes[to]!.fromHub(structuredClone(hub));
  }
  const { labels, annotations } = result.metadata ?? {};
  return {
    ...result,
    apiVersion: `${webhook.group}/${to}`,
    kind: object.kind,
    metadata: {
      ...object.metadata,
      ...(labels !== undefined ? { labels } : {}),
      ...(annotations !== undefined ? { annotations } : {}),
    },
  };
}

function versionOf(webhook: ConversionWebhook, apiVersion: string | undefined): string | undefined {
  const prefix = `${webhook.group}/`;
  if (!apiVersion?.startsWith(prefix)) return undefined;
  const version = apiVersion.slice(prefix.length);
  return version === webhook.hub || Object.hasOwn(webhook.spokes, version) ? version : undefined;
}
