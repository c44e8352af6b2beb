/**
 * Admission webhooks: what a validating or a mutating handler is, per kind and operations.
 *
 * @module
 */
import type { KubernetesObject } from '@kindex/core';
import type { ResourceKind } from '../kind/resource-kind.js';
import type { AdmissionOperation, AdmissionRequest, MutationVerdict, ValidationVerdict } from './admission-review.js';

/**
 * What the API server does when it cannot reach the webhook or gets an error from it: `Fail`
 * refuses the write, `Ignore` admits it as if the webhook had allowed it.
 *
 * @example
 * ```ts
 * import type { WebhookFailurePolicy } from '@kindex/informer';
 *
 * // A defaulting webhook whose absence is harmless.
 * const policy: WebhookFailurePolicy = 'Ignore';
 * ```
 */
export type WebhookFailurePolicy = 'Fail' | 'Ignore';

/**
 * The options common to validating and mutating webhooks.
 *
 * @example
 * ```ts
 * import type { AdmissionWebhookOptions, ResourceKind } from '@kindex/informer';
 * declare const WebPages: ResourceKind;
 *
 * const options: AdmissionWebhookOptions = { kind: WebPages, operations: ['CREATE'], failurePolicy: 'Ignore', timeoutSeconds: 5 };
 * ```
 */
export interface AdmissionWebhookOptions<T extends KubernetesObject = KubernetesObject> {
  /** The kind admitted (its group, version and plural make the configuration's rule). */
  readonly kind: ResourceKind<T>;
  /** Defaults to `['CREATE', 'UPDATE']`. */
  readonly operations?: readonly AdmissionOperation[];
  /**
   * The webhook's name in the configuration: a DNS name of at least three labels, unique in it.
   * Defaults to `validate.<plural>.<group>` or `mutate.<plural>.<group>` (`core` for the core group).
   */
  readonly name?: string;
  /** Defaults to `Fail`, as Kubernetes'. */
  readonly failurePolicy?: WebhookFailurePolicy;
  /** How long the API server waits for the answer, 1 to 30. Defaults to 10, as Kubernetes'. */
  readonly timeoutSeconds?: number;
}

/**
 * A validating admission webhook: allows or denies writes of one kind.
 *
 * Caveats: the API server calls validating webhooks in parallel and after every mutating one,
 * so `request.object` is final; it may call one several times for one write (retries).
 *
 * @example
 * ```ts
 * import type { ValidatingWebhook, ResourceKind } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * type WebPage = KubernetesObject & { spec?: { replicas?: number } };
 * declare const WebPages: ResourceKind<WebPage>;
 *
 * const maxReplicas: ValidatingWebhook<WebPage> = {
 *   kind: WebPages,
 *   validate: ({ object }) =>
 *     (object?.spec?.replicas ?? 0) > 10 ? { allowed: false, message: 'spec.replicas must be at most 10' } : { allowed: true },
 * };
 * ```
 */
export interface ValidatingWebhook<T extends KubernetesObject = KubernetesObject> extends AdmissionWebhookOptions<T> {
  /** Decides; a throw becomes a denial with code 500 naming the webhook. */
  validate(request: AdmissionRequest<T>, signal: AbortSignal): ValidationVerdict | Promise<ValidationVerdict>;
}

/**
 * A mutating admission webhook: returns the object as it should be written; kindex sends the
 * API server the JSON patch from the request's object to it.
 *
 * Caveats: the API server may call it again after other webhooks changed the object
 * (`reinvocationPolicy: IfNeeded`), so a mutation must be idempotent.
 *
 * @example
 * ```ts
 * import type { MutatingWebhook, ResourceKind } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * type WebPage = KubernetesObject & { spec?: { replicas?: number } };
 * declare const WebPages: ResourceKind<WebPage>;
 *
 * const defaultReplicas: MutatingWebhook<WebPage> = {
 *   kind: WebPages,
 *   operations: ['CREATE'],
 *   mutate: ({ object }) => ({ allowed: true, object: { ...object!, spec: { replicas: 1, ...object!.spec } } }),
 * };
 * ```
 */
export interface MutatingWebhook<T extends KubernetesObject = KubernetesObject> extends AdmissionWebhookOptions<T> {
  /** The desired object (a fresh one, or the request's object changed in place), or a denial; a throw becomes a denial with code 500. */
  mutate(request: AdmissionRequest<T>, signal: AbortSignal): MutationVerdict<T> | Promise<MutationVerdict<T>>;
  /** `IfNeeded` asks to be called again when a later webhook changed the object. Defaults to `Never`. */
  readonly reinvocationPolicy?: 'Never' | 'IfNeeded';
}
