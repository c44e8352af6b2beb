/**
 * The options objects of `KubeClient`, each declared once: its keys and the value checks
 * TypeBox can say. `list` and `apply` run per reconcile, so they check keys only (allocation-free
 * when all are known); the constructor runs the full check.
 *
 * @module
 */
import { defineOptions } from '@kindex/core';
import Type from 'typebox';
import type { ApplyOptions, KubeClientOptions, ListOptions } from './kube-client.js';

/** {@link KubeClientOptions}' keys and value checks (`registry` and `requestInactivityMs` keep their own). */
export const KUBE_CLIENT_OPTIONS = defineOptions<KubeClientOptions>('KubeClient options', {
  fieldManager: Type.Optional(Type.String({ minLength: 1, description: 'a non-empty field manager name' })),
  registry: Type.Optional(Type.Unknown()),
  fence: Type.Optional(Type.Function([], Type.Unknown(), { description: 'a function that throws when writes must stop' })),
  validate: Type.Optional(Type.Boolean({ description: 'true or false' })),
  requestInactivityMs: Type.Optional(Type.Unknown()),
});

/** {@link KubeClientOptions}' keys, for `Operator` options' own list. */
export const KUBE_CLIENT_OPTION_KEYS = KUBE_CLIENT_OPTIONS.keys;

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
