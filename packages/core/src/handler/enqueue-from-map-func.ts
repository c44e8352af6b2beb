import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { ResourceID } from '../resource/resource-id.js';
import type { EventHandler } from './event-handler.js';
import { objectsOf } from './internal/objects-of.js';

/**
 * Reconciles the primaries a function maps the event's object to (controller-runtime's
 * EnqueueRequestsFromMapFunc). On update both the old and the new object are mapped and the
 * union is returned (deduplicated by `mapEvent`), so when a reference moves, both the old and
 * the new primary are reconciled.
 *
 * `toPrimaryIds` must be pure: it runs on both versions of an object. If it throws for one
 * object, the error is reported with that object's key and the other version is still mapped.
 *
 * @param name Name in error reports. Defaults to `'enqueueFromMapFunc'`.
 * @example
 * ```ts
 * import { enqueueFromMapFunc, ResourceID, type KubernetesObject, type PrimaryCacheReader } from '@kindex/core';
 * type Cluster = KubernetesObject;
 * declare const jobs: PrimaryCacheReader;
 * // Cluster events reconcile every Job that names the cluster, via a primary-cache index.
 * const toJobs = enqueueFromMapFunc<Cluster>((c) => jobs.byIndex('cluster', c.metadata!.name!).map((job) => ResourceID.fromResource(job)));
 * ```
 */
export function enqueueFromMapFunc<R extends KubernetesObject = KubernetesObject>(
  toPrimaryIds: (object: R) => Iterable<ResourceID>,
  name = 'enqueueFromMapFunc',
): EventHandler<R> {
  return Object.freeze({
    name,
    map(event, report) {
      const out: ResourceID[] = [];
      for (const obj of objectsOf(event)) {
        try {
          // Iterate inside the try: a lazy iterable that throws mid-way is one object's failure too.
          for (const id of toPrimaryIds(obj)) out.push(id);
        } catch (err) {
          report(err, obj);
        }
      }
      return out;
    },
  } satisfies EventHandler<R>);
}
