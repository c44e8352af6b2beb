/**
 * A token naming a type of secondary resource, typed by the resources it stands for.
 *
 * `Context.getSecondaryResources(ClusterType)` finds the event sources whose `resourceType` has
 * the same `name` and returns `Cluster[]`: the name matches at run time, the phantom `R` types
 * the result at compile time. Tokens compare by `name`, so two tokens with one name are the same
 * type. The Kubernetes layer names types `group/version/Kind` (`apps/v1/Deployment`,
 * `v1/ConfigMap` for the core group); other sources choose any unique name.
 *
 * @example
 * ```ts
 * import { secondaryType, type Context, type KubernetesObject } from '@kindex/core';
 * type Cluster = KubernetesObject & { spec: { region: string } };
 * declare const context: Context;
 * const ClusterType = secondaryType<Cluster>('example.com/v1/Cluster');
 * const clusters = context.getSecondaryResources(ClusterType); // Cluster[]
 * ```
 */
export interface SecondaryType<R> {
  /** The unique name of the type. */
  readonly name: string;
  /** Phantom: never set at run time; carries `R` for type inference. */
  readonly __resource?: R;
}

/**
 * Makes a {@link SecondaryType} token for resources of type `R` named `name`.
 *
 * @example
 * ```ts
 * import { secondaryType, type Context } from '@kindex/core';
 * type Bucket = { readonly name: string; readonly region: string };
 * declare const context: Context;
 *
 * // One typed token shared by the source that produces Buckets and the reconciler that reads them.
 * const Buckets = secondaryType<Bucket>('s3.Bucket');
 * const buckets: Bucket[] = context.getSecondaryResources(Buckets);
 * ```
 */
export function secondaryType<R>(name: string): SecondaryType<R> {
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`secondaryType needs a non-empty name, got ${JSON.stringify(name)}`);
  }
  return Object.freeze({ name });
}
