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

/** Makes a {@link SecondaryType} token for resources of type `R` named `name`. */
export function secondaryType<R>(name: string): SecondaryType<R> {
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`secondaryType needs a non-empty name, got ${JSON.stringify(name)}`);
  }
  return Object.freeze({ name });
}
