import { InvalidOptionError, type KubernetesObject } from '@kindex/core';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import { CONTROLLER_OPTIONS, type ControllerOptions } from '../controller/controller-options.js';

/**
 * How the replicas of an operator share one controller's work (controller-runtime's
 * `NeedLeaderElection` per runnable, with sharding as a third way):
 * - `'leader-elected'`: only the replica holding the operator's leader Lease reconciles (the
 *   others keep warm caches); its writes are fenced by that Lease and primary writes carry the
 *   resourceVersion they read. For controllers that must run once in the cluster.
 * - `'sharded'`: each replica reconciles the primaries of the shards it owns (the operator's
 *   shard coordinator), caches only those, and its reconciles are aborted when a shard is lost.
 * - `'every-replica'`: every replica reconciles every primary, with no Lease (for controllers
 *   whose work is per replica, or that tolerate concurrent reconciles).
 *
 * @example
 * ```ts
 * import { Operator, Kinds, type ControllerDistribution, type KubeClient } from '@kindex/informer';
 * import type { KubernetesObject, Reconciler } from '@kindex/core';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 * declare const reconciler: Reconciler<KubernetesObject, KubeClient>;
 *
 * const distribution: ControllerDistribution = 'sharded';
 * const operator = new Operator({
 *   kubeConfig,
 *   leaderElection: { leaseName: 'web-operator', leaseNamespace: 'ops' },
 *   sharding: { group: 'web-operator', namespace: 'ops', shards: 8 },
 * });
 * operator.register(reconciler, { kind: Kinds.ConfigMap, distribution });
 * ```
 */
export type ControllerDistribution = 'leader-elected' | 'sharded' | 'every-replica';

/**
 * Options of `Operator.register`: the controller's options plus how the replicas share its work.
 *
 * @example
 * ```ts
 * import { Kinds, type OperatorControllerOptions } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 *
 * // A singleton beside sharded controllers: it runs on the leader only.
 * const options: OperatorControllerOptions<KubernetesObject> = { kind: Kinds.Namespace, distribution: 'leader-elected' };
 * ```
 */
export type OperatorControllerOptions<P extends KubernetesObject> = ControllerOptions<P> & {
  /**
   * Which replicas reconcile this controller's primaries (see {@link ControllerDistribution}).
   * Defaults to `'leader-elected'` when the operator has `leaderElection` (also when it has
   * `sharding` too: as with controller-runtime, a controller runs on the leader unless it says
   * otherwise, so one written for a single reconciler never runs split by surprise; sharded
   * controllers opt in), else `'sharded'` when it has `sharding`, else `'every-replica'`.
   */
  readonly distribution?: ControllerDistribution;
};

/**
 * {@link OperatorControllerOptions}' keys: the controller's own (whose values the Controller
 * checks) and `distribution` (checked by {@link resolveDistribution}, which names the choices).
 */
export const OPERATOR_CONTROLLER_OPTIONS = defineOptions<OperatorControllerOptions<KubernetesObject>>('controller options', {
  ...CONTROLLER_OPTIONS.properties,
  distribution: Type.Optional(Type.Unknown()),
});

const DISTRIBUTIONS: readonly ControllerDistribution[] = ['leader-elected', 'sharded', 'every-replica'];

/**
 * A controller's `distribution` the operator cannot honour: it names the controller, the value
 * and the fix. A kind of `InvalidOptionError` (code `KINDEX_INVALID_OPTION`), as every bad option is.
 *
 * @example
 * ```ts
 * import { KubeConfig } from '@kubernetes/client-node';
 * import { ControllerDistributionError, Kinds, Operator, type KubeClient } from '@kindex/informer';
 * import type { KubernetesObject, Reconciler } from '@kindex/core';
 * declare const kubeConfig: KubeConfig;
 * declare const reconciler: Reconciler<KubernetesObject, KubeClient>;
 *
 * try {
 *   // No `sharding` option: nothing could split the primaries.
 *   new Operator({ kubeConfig }).register(reconciler, { kind: Kinds.ConfigMap, distribution: 'sharded' });
 * } catch (e) {
 *   if (e instanceof ControllerDistributionError) console.error(e.controller, e.field, e.message);
 * }
 * ```
 */
export class ControllerDistributionError extends InvalidOptionError {
  override readonly name: string = 'ControllerDistributionError';
  /** The option at fault. */
  readonly field = 'distribution';
  constructor(
    /** The controller's name. */
    readonly controller: string,
    value: unknown,
    fix: string,
  ) {
    super(
      {
        options: `controller ${controller} options`,
        key: 'distribution',
        value,
        problem: DISTRIBUTIONS.includes(value as ControllerDistribution)
          ? 'the Operator cannot honour it'
          : 'not one of the values accepted',
        fix,
      },
      `controller ${JSON.stringify(controller)}: distribution ${JSON.stringify(value)}: ${fix}`,
    );
  }
}

/** @internal What the operator was configured with, as far as distributions go. */
export interface OperatorReplication {
  readonly leaderElection: boolean;
  readonly sharding: boolean;
}

/**
 * @internal The distribution a controller runs with: the one it asked for when the operator can honour
 * it, else the default for the operator's options (see `OperatorControllerOptions.distribution`).
 * Throws {@link ControllerDistributionError} for an unknown value or one the operator lacks the
 * option for.
 */
export function resolveDistribution(
  controller: string,
  requested: ControllerDistribution | undefined,
  operator: OperatorReplication,
): ControllerDistribution {
  if (requested === undefined) {
    if (operator.leaderElection) return 'leader-elected';
    return operator.sharding ? 'sharded' : 'every-replica';
  }
  if (!DISTRIBUTIONS.includes(requested)) {
    throw new ControllerDistributionError(controller, requested, `use one of ${DISTRIBUTIONS.map((d) => `'${d}'`).join(', ')}`);
  }
  if (!resolvable(requested, operator)) {
    const [option, example] =
      requested === 'sharded'
        ? ['sharding', 'sharding: { group, namespace, shards }']
        : ['leaderElection', 'leaderElection: { leaseName, leaseNamespace }'];
    const others = DISTRIBUTIONS.filter((d) => d !== requested && resolvable(d, operator)).map((d) => `'${d}'`);
    throw new ControllerDistributionError(
      controller,
      requested,
      `the Operator has no ${option} option: give it \`${example}\`, or register the controller with distribution ${others.join(' or ')}`,
    );
  }
  return requested;
}

/** Whether the operator has what `distribution` needs. */
function resolvable(distribution: ControllerDistribution, operator: OperatorReplication): boolean {
  if (distribution === 'sharded') return operator.sharding;
  if (distribution === 'leader-elected') return operator.leaderElection;
  return true;
}
