import type { KubernetesObject, ObjectMeta } from '../resource/kubernetes-object.js';
import type { ResourceEvent, ResourceEventType } from '../event/resource-event.js';

/**
 * The type of `spec` of an object type: as declared (optional stays optional), else `unknown`.
 *
 * @example
 * ```ts
 * import type { KubernetesObject, SpecOf } from '@kindex/core';
 * type WebApp = KubernetesObject & { spec: { image: string; replicas: number } };
 *
 * const spec: SpecOf<WebApp> = { image: 'nginx:1.27', replicas: 2 };
 * ```
 */
export type SpecOf<R> = R extends { spec: infer S } ? S : R extends { spec?: infer S } ? S | undefined : unknown;
/**
 * The type of `status` of an object type: as declared (optional stays optional), else `unknown`.
 *
 * @example
 * ```ts
 * import type { KubernetesObject, StatusOf } from '@kindex/core';
 * type WebApp = KubernetesObject & { status?: { readyReplicas: number } };
 *
 * const status: StatusOf<WebApp> = { readyReplicas: 2 }; // `undefined` is allowed too: status is optional
 * ```
 */
export type StatusOf<R> = R extends { status: infer S } ? S : R extends { status?: infer S } ? S | undefined : unknown;

/**
 * What kopf-style callbacks (`when`, and value callbacks as their second argument) receive: the
 * typed counterpart of kopf's keyword arguments (`body`, `meta`, `spec`, `status`, `name`,
 * `namespace`, `labels`, `annotations`, `old`, `new`).
 *
 * Built lazily, once per event and filter, only when a callback runs.
 *
 * @example
 * ```ts
 * import { kopfFilter, type FilterContext, type KubernetesObject } from '@kindex/core';
 * type WebApp = KubernetesObject & { spec: { replicas: number } };
 *
 * // Callbacks read the typed spec of the object through the context.
 * const scaledToZero = (ctx: FilterContext<WebApp>) => ctx.spec.replicas === 0;
 * const idle = kopfFilter<WebApp>({ when: scaledToZero });
 * ```
 */
export interface FilterContext<R extends KubernetesObject = KubernetesObject> {
  /** The event being judged. */
  readonly event: ResourceEvent<R>;
  /** The event type. */
  readonly type: ResourceEventType;
  /** The current object (kopf's `body`): the new object of an update. */
  readonly body: R;
  /** The object before the update; undefined for other events. */
  readonly oldObject: R | undefined;
  /** `body.metadata`, `{}` when absent. */
  readonly meta: Readonly<ObjectMeta>;
  readonly name: string | undefined;
  readonly namespace: string | undefined;
  /** The current labels, `{}` when absent. */
  readonly labels: Readonly<Record<string, string>>;
  /** The current annotations, `{}` when absent. */
  readonly annotations: Readonly<Record<string, string>>;
  readonly spec: SpecOf<R>;
  readonly status: StatusOf<R>;
  /**
   * With `field`: the field's value before the change (undefined when absent); without: the old
   * object. For a create it is undefined; for delete and generic events, the current state.
   */
  readonly old: unknown;
  /**
   * With `field`: the field's value after the change (undefined when absent); without: the new
   * object. For a delete it is undefined; for create and generic events, the current state.
   */
  readonly new: unknown;
}

const EMPTY: Readonly<Record<string, string>> = Object.freeze({});

/** Builds the context of one event; `old`/`new` are given by the filter (field values or objects). */
export function makeFilterContext<R extends KubernetesObject>(
  event: ResourceEvent<R>,
  oldValue: unknown,
  newValue: unknown,
): FilterContext<R> {
  const body = event.object;
  const meta: Readonly<ObjectMeta> = body?.metadata ?? {};
  const loose = body as unknown as { spec?: unknown; status?: unknown } | undefined;
  return Object.freeze({
    event,
    type: event.type,
    body,
    oldObject: event.type === 'update' ? event.oldObject : undefined,
    meta,
    name: meta.name,
    namespace: meta.namespace,
    labels: meta.labels ?? EMPTY,
    annotations: meta.annotations ?? EMPTY,
    spec: loose?.spec as SpecOf<R>,
    status: loose?.status as StatusOf<R>,
    old: oldValue,
    new: newValue,
  });
}
