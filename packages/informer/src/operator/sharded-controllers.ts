import type { KubernetesObject } from '@kindex/core';
import type { Controller } from '../controller/controller.js';
import { controllerInternals } from '../controller/controller-internals.js';
import type { ShardedController } from '../sharding/sharded-controller.js';

const adapters = new WeakMap<Controller<KubernetesObject>, ShardedController>();

/**
 * A controller as operator sharding drives it (sharding/'s port): its public reads and shard
 * selector with the abort and drain of its internals. Made once per controller.
 */
export function shardedController(controller: Controller<KubernetesObject>): ShardedController {
  let adapter = adapters.get(controller);
  if (adapter === undefined) {
    const internals = controllerInternals<KubernetesObject>(controller);
    adapter = {
      getPrimary: (key) => controller.getPrimary(key),
      enqueue: (key) => controller.processor?.enqueue(key),
      changeShardSelector: (selector) => controller.changeShardSelector(selector),
      abortReconciles: (belongs, reason) => internals.abortReconciles(belongs, reason),
      whenIdle: (belongs) => internals.whenIdle(belongs),
    };
    adapters.set(controller, adapter);
  }
  return adapter;
}
