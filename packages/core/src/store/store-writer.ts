import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { ResourceID } from '../resource/resource-id.js';

/**
 * What {@link IndexedStore.upsert} did: the object as stored and the version it replaced.
 *
 * @example
 * ```ts
 * import { IndexedStore, type UpsertResult } from '@kindex/core';
 * const store = new IndexedStore();
 *
 * const result: UpsertResult | undefined = store.upsert({ metadata: { name: 'web', namespace: 'shop', resourceVersion: '7' } });
 * if (result?.old === undefined) console.log('new object', result?.object.metadata?.name);
 * ```
 */
export interface UpsertResult<R extends KubernetesObject = KubernetesObject> {
  /** The object now in the store (the same object, frozen). */
  readonly object: R;
  /** The previous version, or undefined when the object is new. */
  readonly old: R | undefined;
}

/**
 * The writes {@link IndexedStore.batch} offers, applied together when the batch ends.
 *
 * @example
 * ```ts
 * import { IndexedStore, type KubernetesObject, type StoreWriter } from '@kindex/core';
 * const store = new IndexedStore();
 *
 * // Several writes applied as one change, so readers never see half of them.
 * store.batch((writer: StoreWriter<KubernetesObject>) => {
 *   writer.upsert({ metadata: { name: 'a', namespace: 'shop' } });
 *   writer.delete('shop/b');
 * });
 * ```
 */
export interface StoreWriter<R extends KubernetesObject = KubernetesObject> {
  /** The object as the batch has it so far (the store's readers still see the old content). */
  get(idOrKey: ResourceID | string): R | undefined;
  /** As {@link IndexedStore.upsert}. */
  upsert(obj: R): UpsertResult<R> | undefined;
  /** As {@link IndexedStore.delete}. */
  delete(idOrKey: ResourceID | string, resourceVersion?: string): R | undefined;
}
