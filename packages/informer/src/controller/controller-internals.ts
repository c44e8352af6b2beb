import type { KubernetesObject } from '@kindex/core';

/**
 * What the composition root (`operator/`) reaches of a controller beyond its public API: the
 * per-primary guard and write fence of sharding, and a shard release's abort and drain. Kept off
 * `Controller`'s surface (users never call them) and handed out by {@link controllerInternals},
 * which the package does not export.
 */
export interface ControllerInternals<P extends KubernetesObject> {
  /** Reconciles run only for primaries `guard` accepts, checked synchronously right before each one. */
  setDispatchGuard(guard: ((primary: P) => boolean) | undefined): void;
  /**
   * `fence` throws to refuse the writes made on behalf of `primary` (its shard is lost), checked
   * as each request is about to be sent through the client each reconcile gets.
   */
  setPrimaryFence(fence: ((primary: P) => void) | undefined): void;
  /** Aborts the signals of the running reconciles of primaries matching `belongs`; returns their keys. */
  abortReconciles(belongs: (primary: P) => boolean, reason: unknown): string[];
  /** Resolves once no reconcile of a primary matching `belongs` runs (told as each ends, no timer). */
  whenIdle(belongs: (primary: P) => boolean): Promise<void>;
}

const registered = new WeakMap<object, ControllerInternals<KubernetesObject>>();

/** Called by each `Controller` as it is built, with the part of it that implements the internals. */
export function registerControllerInternals<P extends KubernetesObject>(controller: object, internals: ControllerInternals<P>): void {
  registered.set(controller, internals);
}

/** The internals of a controller (see {@link ControllerInternals}). */
export function controllerInternals<P extends KubernetesObject>(controller: { readonly primaryCache: unknown }): ControllerInternals<P> {
  const internals = registered.get(controller);
  if (internals === undefined) throw new TypeError('controllerInternals: not a Controller');
  return internals as unknown as ControllerInternals<P>;
}
