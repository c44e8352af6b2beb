/**
 * The schema of status conditions (`meta/v1.Condition`) for {@link customResource} statuses, so
 * that a custom resource reports `Ready` the Kubernetes way without copying fifteen lines of
 * schema: {@link ConditionSchema} is one condition, {@link Conditions} the list, keyed by `type`.
 *
 * The bounds and patterns are apimachinery's (the `+kubebuilder:validation` markers on
 * metav1.Condition), so a condition the API server accepts in a Deployment's status is accepted
 * here, and one `setStatusCondition` of @kindex/core would refuse is refused by the server too.
 *
 * @module
 */
import type { Condition } from '@kindex/core';
import Type, { type TUnsafe } from 'typebox';

/**
 * The schema of one status condition (`meta/v1.Condition`): `type`, `status` (True, False or
 * Unknown), `observedGeneration`, `lastTransitionTime`, `reason` and `message`, with
 * apimachinery's bounds. Its static type is core's {@link Condition}. Use {@link Conditions} for
 * the `status.conditions` list.
 *
 * @example
 * ```ts
 * import Type from 'typebox';
 * import { ConditionSchema, customResource } from '@kindex/informer';
 *
 * // A status with the last condition seen, beside its own fields.
 * const Backups = customResource({
 *   group: 'example.com',
 *   kind: 'Backup',
 *   plural: 'backups',
 *   versions: { v1: { spec: Type.Object({ schedule: Type.String() }), status: Type.Object({ last: Type.Optional(ConditionSchema) }) } },
 * });
 * ```
 */
export const ConditionSchema: TUnsafe<Condition> = Type.Unsafe<Condition>(
  Type.Object(
    {
      type: Type.String({
        maxLength: 316,
        // A qualified name: `Ready`, or `example.com/Synced` with a DNS subdomain prefix.
        pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
      }),
      status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')]),
      observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
      lastTransitionTime: Type.String({ format: 'date-time' }),
      reason: Type.String({ minLength: 1, maxLength: 1024, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
      message: Type.String({ maxLength: 32768 }),
    },
    { description: 'One aspect of the current state (meta/v1.Condition).' },
  ),
);

/**
 * The schema of `status.conditions`: a list of {@link ConditionSchema}, keyed by `type`
 * (`x-kubernetes-list-type: map`, as metav1's `+listType=map` marker), so that two writers'
 * server-side applies merge per condition instead of replacing the list. Its static type is
 * `readonly Condition[]`, which `setStatusCondition` of @kindex/core takes and returns.
 *
 * @example
 * ```ts
 * import Type from 'typebox';
 * import { setStatusCondition } from '@kindex/core';
 * import { Conditions, customResource, type ObjectOfKind } from '@kindex/informer';
 *
 * const Widgets = customResource({
 *   group: 'example.com',
 *   kind: 'Widget',
 *   plural: 'widgets',
 *   versions: {
 *     v1: {
 *       spec: Type.Object({ size: Type.Integer({ minimum: 1, default: 1 }) }),
 *       status: Type.Object({ conditions: Type.Optional(Conditions) }),
 *     },
 *   },
 * });
 * declare const widget: ObjectOfKind<typeof Widgets>;
 * const conditions = setStatusCondition(widget.status?.conditions, { type: 'Ready', status: 'True', reason: 'Reconciled' });
 * ```
 */
export const Conditions: TUnsafe<readonly Condition[]> = Type.Unsafe<readonly Condition[]>(
  Type.Array(ConditionSchema, {
    description: 'Conditions of the current state, one per type.',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
  }),
);
