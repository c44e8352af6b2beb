/**
 * The wire forms the API server and a webhook exchange (`admission.k8s.io/v1 AdmissionReview`),
 * and the typed request a handler reads.
 *
 * @module
 */
import type { KubernetesObject } from '@kindex/core';

/**
 * The operation an admission request is about.
 *
 * @example
 * ```ts
 * import type { AdmissionOperation } from '@kindex/informer';
 *
 * const onWrites: readonly AdmissionOperation[] = ['CREATE', 'UPDATE'];
 * ```
 */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/**
 * Who sent the request the API server is admitting (`authentication.k8s.io/v1 UserInfo`).
 *
 * @example
 * ```ts
 * import type { AdmissionUserInfo } from '@kindex/informer';
 *
 * const isController = (user: AdmissionUserInfo): boolean => user.username.startsWith('system:serviceaccount:operators:');
 * ```
 */
export interface AdmissionUserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/**
 * One admission request, as a handler sees it: the `request` of an AdmissionReview with
 * `object` and `oldObject` typed by the handler's kind and `dryRun` always a boolean.
 *
 * `object` is absent on DELETE, `oldObject` on CREATE (and CONNECT). A handler must not cause
 * side effects when `dryRun` is true: the manifest declares `sideEffects: None`.
 *
 * @example
 * ```ts
 * import type { AdmissionRequest } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * type WebPage = KubernetesObject & { spec?: { replicas?: number } };
 *
 * const grows = (request: AdmissionRequest<WebPage>): boolean =>
 *   request.operation === 'UPDATE' && (request.object?.spec?.replicas ?? 0) > (request.oldObject?.spec?.replicas ?? 0);
 * ```
 */
export interface AdmissionRequest<T extends KubernetesObject = KubernetesObject> {
  /** Identifies this call; the response carries it back. Log it to match server and webhook logs. */
  readonly uid: string;
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string };
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string };
  readonly subResource?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly operation: AdmissionOperation;
  readonly userInfo: AdmissionUserInfo;
  /** The object after the write (after earlier mutating webhooks). Absent on DELETE. */
  readonly object?: T;
  /** The object before the write. Absent on CREATE. */
  readonly oldObject?: T;
  /** True when the write will not be persisted (`?dryRun=All`). */
  readonly dryRun: boolean;
  /** The operation's options (CreateOptions, UpdateOptions, DeleteOptions), as sent. */
  readonly options?: Readonly<Record<string, unknown>>;
}

/**
 * A refusal: the API server answers the client with `code` and `message`.
 *
 * @example
 * ```ts
 * import type { AdmissionDenial } from '@kindex/informer';
 *
 * const denial: AdmissionDenial = { allowed: false, message: 'spec.replicas must be at most 10', code: 422 };
 * ```
 */
export interface AdmissionDenial {
  readonly allowed: false;
  /** Shown to the client as the reason of the refusal. */
  readonly message: string;
  /** HTTP status the client gets. Defaults to 403, as the API server's. */
  readonly code?: number;
  /** Shown to the client as warnings (kubectl prints them), even with the refusal. */
  readonly warnings?: readonly string[];
}

/**
 * What a validating handler answers: allowed (maybe with warnings) or a denial.
 *
 * @example
 * ```ts
 * import type { ValidationVerdict } from '@kindex/informer';
 *
 * const ok: ValidationVerdict = { allowed: true, warnings: ['spec.title is empty: the page has no <title>'] };
 * ```
 */
export type ValidationVerdict = { readonly allowed: true; readonly warnings?: readonly string[] } | AdmissionDenial;

/**
 * What a mutating handler answers: the desired object (kindex computes the RFC 6902 patch from
 * the request's object to it), or a denial.
 *
 * @example
 * ```ts
 * import type { MutationVerdict } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * type WebPage = KubernetesObject & { spec?: { replicas?: number } };
 * declare const page: WebPage;
 *
 * const defaulted: MutationVerdict<WebPage> = { allowed: true, object: { ...page, spec: { replicas: 1, ...page.spec } } };
 * ```
 */
export type MutationVerdict<T extends KubernetesObject> =
  { readonly allowed: true; readonly object: T; readonly warnings?: readonly string[] } | AdmissionDenial;

/** The `response` of an AdmissionReview, as sent (internal: handlers return verdicts). */
export interface AdmissionResponseWire {
  uid: string;
  allowed: boolean;
  status?: { code: number; message: string; reason?: string };
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
}
