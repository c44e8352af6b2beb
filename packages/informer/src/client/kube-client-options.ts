/**
 * The options objects of `KubeClient`: the interfaces users read and, for each, one definition of
 * its keys and the value checks TypeBox can say. `list` and `apply` run per reconcile, so they check keys only (allocation-free
 * when all are known); the constructor runs the full check.
 *
 * @module
 */
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import type { KubeClientRegistry } from './kube-client-registry.js';

/**
 * Options of {@link KubeClient.apply}.
 *
 * @example
 * ```ts
 * import { Kinds, type ApplyOptions, type KubeClient } from '@kindex/informer';
 * declare const client: KubeClient;
 *
 * // Take over fields another manager set (a one-off migration), for the status subresource.
 * const options: ApplyOptions = { fieldManager: 'web-operator', force: true, subresource: 'status' };
 * await client.apply(Kinds.ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config', namespace: 'shop' } }, options);
 * ```
 */
export interface ApplyOptions {
  /** The field manager that owns what is applied. Defaults to the client's `fieldManager`. */
  readonly fieldManager?: string;
  /**
   * Takes over fields other managers own with other values instead of failing with 409
   * Conflict. Controllers usually force: they are the authority over what they apply. Defaults to false.
   */
  readonly force?: boolean;
  /** Applies to the status subresource (only `status` is taken from the object). */
  readonly subresource?: 'status';
  /** Validates and answers as if applied, without storing. Defaults to false. */
  readonly dryRun?: boolean;
}

/**
 * What {@link KubeClient.list} lists.
 *
 * @example
 * ```ts
 * import { Kinds, type KubeClient, type ListOptions } from '@kindex/informer';
 * declare const client: KubeClient;
 *
 * // The web tier's ConfigMaps in one namespace, straight from the server (every page).
 * const options: ListOptions = { namespace: 'shop', labelSelector: 'tier=web' };
 * const configMaps = await client.list(Kinds.ConfigMap, options);
 * ```
 */
export interface ListOptions {
  /** The namespace to list in. Defaults to every namespace (and is ignored for cluster-scoped kinds). */
  readonly namespace?: string;
  /** The server's `labelSelector`, for example `app=web,tier!=db`. Defaults to none. */
  readonly labelSelector?: string;
  /** The server's `fieldSelector`, for example `metadata.name=web`. Defaults to none. */
  readonly fieldSelector?: string;
}

/**
 * Options of {@link KubeClient}.
 *
 * @example
 * ```ts
 * import { KubeClient, type KubeClientOptions } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const options: KubeClientOptions = { fieldManager: 'web-operator' };
 * const client = new KubeClient(kubeConfig, options);
 * ```
 */
export interface KubeClientOptions {
  /** Field manager recorded for writes. Defaults to `kindex`. */
  readonly fieldManager?: string;
  /** Registry of shared informers (an `InformerRegistry`). Defaults to the one its first cache makes. */
  readonly registry?: KubeClientRegistry;
  /**
   * Called before every write (and by controllers before every reconcile); throws to refuse it.
   * Leader election sets it so a replica that lost its lease cannot write (fencing). Writes
   * through `objectApi()` bypass it. Defaults to none.
   */
  readonly fence?: () => void;
  /**
   * Check objects of custom resources defined with `customResource()` against their schema and
   * CEL rules before `create`, `update` and `apply` (an apply configuration without `required`
   * and CEL, which hold for the merged object), rejecting with `CustomResourceValidationError`
   * instead of sending. Patches are not checked. Defaults to false.
   */
  readonly validate?: boolean;
  /**
   * Gives up on a request (every one but a watch, which the reflector times itself) when nothing
   * of the answer arrives for this long, with `InactivityTimeoutError`: a kept-alive connection
   * whose server vanished without a word would otherwise hold the request, and the reconcile
   * waiting on it, until the kernel gives up (about 15 minutes). Defaults to 70,000 ms, beyond
   * kube-apiserver's own 60 s limit on a request, so a slow answer is never cut.
   */
  readonly requestInactivityMs?: number;
}

/** {@link KubeClientOptions}' keys and value checks (`registry` and `requestInactivityMs` keep their own). */
export const KUBE_CLIENT_OPTIONS = defineOptions<KubeClientOptions>('KubeClient options', {
  fieldManager: Type.Optional(Type.String({ minLength: 1, description: 'a non-empty field manager name' })),
  registry: Type.Optional(Type.Unknown()),
  fence: Type.Optional(Type.Function([], Type.Unknown(), { description: 'a function that throws when writes must stop' })),
  validate: Type.Optional(Type.Boolean({ description: 'true or false' })),
  requestInactivityMs: Type.Optional(Type.Unknown()),
});

/** {@link ListOptions}' keys (checked per call, keys only). */
export const LIST_OPTIONS = defineOptions<ListOptions>('KubeClient.list options', {
  namespace: Type.Optional(Type.String()),
  labelSelector: Type.Optional(Type.String()),
  fieldSelector: Type.Optional(Type.String()),
});

/** {@link ApplyOptions}' keys (checked per call, keys only). */
export const APPLY_OPTIONS = defineOptions<ApplyOptions>('KubeClient.apply options', {
  fieldManager: Type.Optional(Type.String()),
  force: Type.Optional(Type.Boolean()),
  subresource: Type.Optional(Type.Literal('status')),
  dryRun: Type.Optional(Type.Boolean()),
});
