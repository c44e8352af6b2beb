/**
 * Namespaces chosen by a label selector on Namespace objects, followed at run time (the request
 * open as JOSDK #2434 and controller-runtime #3178).
 *
 * A {@link NamespaceSelection} keeps an informer on the Namespace objects the selector matches.
 * Its set is their names; whenever a namespace gains or loses the label (or is created or
 * deleted), the owner's `apply` runs with the new set, one call at a time, always with the
 * latest set, so quick label flips coalesce. The owner is a controller (`namespaceSelector` in
 * `ControllerOptions`, followed by the event sources that inherit its namespaces) or an event
 * source (`withNamespaceSelector`); both apply a set through the same run-time namespace change
 * as `changeNamespaces`: an added namespace syncs and its objects arrive as creates, a removed
 * one leaves the caches without any reconcile.
 *
 * The Namespace informer's first list is part of the owner's startup: a 403 (no RBAC to list
 * namespaces) rejects `start()` with the same `CacheSyncError` as any other cache, naming the
 * owner, the `namespaces` kind and the ClusterRole to grant.
 *
 * @module
 */
import type { Subscription } from 'rxjs';
import type { KubeConfig } from '@kubernetes/client-node';
import type { InformerRegistry } from '../cache/informer-registry.js';
import { InformerCache } from '../cache/informer-cache.js';
import { type CacheStartOptions } from '../cache/informer-cache-options.js';
import { Kinds, type ObjectOfKind } from '../kind/resource-kind.js';
import { checkLabelSelector } from '../config/option-validation.js';

/** Options of {@link NamespaceSelection}. */
export interface NamespaceSelectionOptions {
  /** Who follows the selection, for messages (`controller jobs`). */
  readonly owner: string;
  /** Label selector on Namespace objects (`team=a`, `env in (dev,test)`). */
  readonly labelSelector: string;
  readonly kubeConfig: KubeConfig;
  readonly registry: InformerRegistry;
}

/** The set of namespaces whose Namespace object matches a label selector, kept current. */
export class NamespaceSelection {
  /** The informer cache of the matching Namespace objects. */
  readonly cache: InformerCache<ObjectOfKind<typeof Kinds.Namespace>>;
  readonly labelSelector: string;
  #subscription: Subscription | undefined;
  #applying: Promise<void> = Promise.resolve();
  #applied: string | undefined;

  constructor(options: NamespaceSelectionOptions) {
    if (typeof options.labelSelector !== 'string' || options.labelSelector.trim() === '') {
      throw new TypeError(
        `${options.owner}: namespaceSelector must be a non-empty label selector on Namespace objects, for example 'team=a', ` +
          `got ${JSON.stringify(options.labelSelector)}`,
      );
    }
    checkLabelSelector(`${options.owner} namespaceSelector`, options.labelSelector);
    this.labelSelector = options.labelSelector;
    this.cache = new InformerCache({
      name: `${options.owner} namespace selector`,
      kubeConfig: options.kubeConfig,
      registry: options.registry,
      kind: Kinds.Namespace,
      labelSelector: options.labelSelector,
    });
  }

  /** The names of the matching namespaces now, sorted. Empty before `start()`. */
  current(): readonly string[] {
    return this.cache
      .list()
      .map((ns) => ns.metadata?.name)
      .filter((name): name is string => name !== undefined)
      .sort();
  }

  /**
   * Lists the matching namespaces and resolves with their names once synced.
   * @throws {CacheSyncError} when the list is refused for good (403 without RBAC on namespaces).
   */
  async start(options: CacheStartOptions = {}): Promise<readonly string[]> {
    await this.cache.start(options);
    const names = this.current();
    this.#applied = names.join(',');
    return names;
  }

  /**
   * Calls `apply` with the new set after every change of the matching namespaces, one call at a
   * time; what `apply` throws goes to `onError` and the next change tries again. Changes between
   * `start()` and this call are applied at once.
   */
  follow(apply: (namespaces: readonly string[]) => Promise<void>, onError: (error: unknown) => void): void {
    this.#subscription?.unsubscribe();
    const check = (): void => {
      this.#applying = this.#applying.then(async () => {
        // Read the set when the call runs, not when the change came: changes queued meanwhile
        // collapse into one call with the newest set, and a set already applied is not re-applied.
        if (this.#subscription === undefined) return;
        const names = this.current();
        const key = names.join(',');
        if (key === this.#applied) return;
        this.#applied = key;
        try {
          await apply(names);
        } catch (error) {
          this.#applied = undefined;
          onError(error);
        }
      });
    };
    this.#subscription = this.cache.deltas$.subscribe(check);
    check();
  }

  /** Stops following and releases the Namespace informer; waits for a change being applied. */
  async stop(): Promise<void> {
    this.#subscription?.unsubscribe();
    this.#subscription = undefined;
    await this.#applying;
    await this.cache.stop();
  }
}
