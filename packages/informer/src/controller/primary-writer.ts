import jsonPatch from 'fast-json-patch';
import { ResourceID, type KubernetesObject } from '@kindex/core';
import { deepFreeze, jsonEqual } from '@kindex/core/internal';
import type { KubeClient } from '../client/kube-client.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import { keepAppliedFields } from '../reflector/object-transform.js';
import { matchesAppliedFields } from '../client/ssa-matcher.js';

type Operation = jsonPatch.Operation;

/**
 * How a controller writes the status and the resource its reconciler returns:
 * - `patch`: JSON patch diffs of what the reconciler changed (the default);
 * - `apply`: server-side apply with `force`, JOSDK 5's default: the controller's field manager
 *   owns the status (and, for `patchResource`, the fields) it applies, so fields it stops
 *   setting are removed and fields other writers own are left alone. Without a status
 *   subresource status is still JSON-patched, since an apply of status alone to the main
 *   resource would drop the resource fields the same manager applied.
 *
 * @example
 * ```ts
 * import { Kinds, type ControllerOptions, type PrimaryWriteMode } from '@kindex/informer';
 *
 * // Write the primary's status with server-side apply, so other writers keep their fields.
 * const primaryWrites: PrimaryWriteMode = 'apply';
 * const options: ControllerOptions<import('@kindex/core').KubernetesObject> = { kind: Kinds.ConfigMap, primaryWrites };
 * ```
 */
export type PrimaryWriteMode = 'patch' | 'apply';

/**
 * Writes a controller makes to its primaries: status and resource patches computed as JSON
 * patch diffs (only what the reconciler changed is sent, and fields it removed are removed),
 * and finalizer edits guarded by `test` operations so a concurrent edit of the list fails
 * instead of being clobbered. Every write returns the server's object, ready for the
 * read-after-write cache.
 */
export class PrimaryWriter<P extends KubernetesObject> {
  constructor(
    private readonly client: KubeClient,
    private readonly kind: ResourceKind<P>,
    private readonly hasStatusSubresource: () => boolean,
    /**
     * Make every write conditional on the resourceVersion the reconcile read (controller-runtime's
     * MergeFromWithOptimisticLock): the server answers 409 when the object changed meanwhile, so a
     * late write from a replica that lost its lease cannot clobber the new leader's.
     */
    private readonly optimisticLock = false,
    private readonly mode: PrimaryWriteMode = 'patch',
  ) {}

  /** The same writer, writing through `client` (one fenced for the reconcile at hand). */
  withClient(client: KubeClient): PrimaryWriter<P> {
    return new PrimaryWriter(client, this.kind, this.hasStatusSubresource, this.optimisticLock, this.mode);
  }

  /** Patches `status` from `before` to `after`; undefined when nothing changed. */
  async patchStatus(before: P, after: P): Promise<P | undefined> {
    if (this.mode === 'apply' && this.hasStatusSubresource()) {
      const { apiVersion, kind } = before;
      const { name, namespace, resourceVersion } = before.metadata ?? {};
      // An applied resourceVersion is a precondition too: a deposed leader's late apply gets 409.
      const locked = this.optimisticLock && resourceVersion !== undefined ? { resourceVersion } : {};
      const body = {
        apiVersion,
        kind,
        metadata: { name, ...(namespace ? { namespace } : {}), ...locked },
        status: statusOf(after) ?? {},
      } as unknown as P;
      // Unchanged, or already what this manager applied (other writers' status fields aside): no write.
      if (jsonEqual(statusOf(before), statusOf(after))) return undefined;
      if (matchesAppliedFields(before, body, this.client.fieldManager, { subresource: 'status' })) return undefined;
      return deepFreeze(keepAppliedFields(await this.client.apply<P>(this.kind, body, { force: true, subresource: 'status' })));
    }
    const ops = jsonPatch.compare({ status: statusOf(before) ?? {} }, { status: statusOf(after) ?? {} });
    if (ops.length === 0) return undefined;
    // A status that did not exist yet needs its parent created first.
    const patch: Operation[] = statusOf(before) === undefined ? [{ op: 'add', path: '/status', value: {} }, ...ops] : ops;
    return this.#write(before, patch, this.hasStatusSubresource() ? 'status' : undefined);
  }

  /** Patches everything but status (spec, labels, annotations...) from `before` to `after`. */
  async patchResource(before: P, after: P): Promise<P | undefined> {
    const ops = jsonPatch
      .compare(withoutStatus(before), withoutStatus(after))
      .filter((op) => !op.path.startsWith('/metadata/resourceVersion') && !op.path.startsWith('/metadata/managedFields'));
    if (ops.length === 0) return undefined;
    if (this.mode === 'apply') {
      if (matchesAppliedFields(before, after, this.client.fieldManager)) return undefined;
      return deepFreeze(keepAppliedFields(await this.client.apply<P>(this.kind, withoutStatus(after) as P, { force: true })));
    }
    return this.#write(before, ops);
  }

  /** Adds the finalizer unless present. */
  async addFinalizer(primary: P, finalizer: string): Promise<P | undefined> {
    const finalizers = primary.metadata?.finalizers;
    if (finalizers?.includes(finalizer)) return undefined;
    const ops: Operation[] =
      finalizers === undefined
        ? [
            { op: 'test', path: '/metadata/resourceVersion', value: primary.metadata?.resourceVersion },
            { op: 'add', path: '/metadata/finalizers', value: [finalizer] },
          ]
        : [{ op: 'add', path: '/metadata/finalizers/-', value: finalizer }];
    return this.#write(primary, ops);
  }

  /** Removes the finalizer if present (the `test` guards against a concurrent reorder). */
  async removeFinalizer(primary: P, finalizer: string): Promise<P | undefined> {
    const i = primary.metadata?.finalizers?.indexOf(finalizer) ?? -1;
    if (i < 0) return undefined;
    return this.#write(primary, [
      { op: 'test', path: `/metadata/finalizers/${i}`, value: finalizer },
      { op: 'remove', path: `/metadata/finalizers/${i}` },
    ]);
  }

  async #write(base: P, ops: Operation[], subresource?: 'status'): Promise<P> {
    const id = ResourceID.fromResource(base);
    const rv = base.metadata?.resourceVersion;
    // A resourceVersion in the patched object is a precondition on the server: 409 if stale.
    if (this.optimisticLock && rv !== undefined) ops = [{ op: 'replace', path: '/metadata/resourceVersion', value: rv }, ...ops];
    const written = await this.client.patch<P>(this.kind, id, ops, { patchType: 'json', ...(subresource ? { subresource } : {}) });
    // Shaped as the cache shapes it (Apply entries kept), so either can stand in for the other.
    return deepFreeze(keepAppliedFields(written));
  }
}

function statusOf(o: KubernetesObject): unknown {
  return (o as { status?: unknown }).status;
}

function withoutStatus(o: KubernetesObject): object {
  const { status: _status, ...rest } = o as { status?: unknown };
  return rest;
}
