import { ShardSelector, type KubernetesObject } from '@kindex/core';
import { SharedInformer } from './shared-informer.js';
import type { InformerSpec } from './informer-spec.js';
import type { KubeClient } from '../client/kube-client.js';

/**
 * A counted claim on a shared informer; `release()` once, when the source stops using it.
 *
 * @example
 * ```ts
 * import { InformerRegistry, Kinds, type InformerLease } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const lease: InformerLease = new InformerRegistry().acquire({ kubeConfig, type: Kinds.Pod });
 * await lease.informer.start();
 * const pods = lease.informer.store.list();
 * await lease.release();
 * ```
 */
export interface InformerLease<R extends KubernetesObject = KubernetesObject> {
  readonly informer: SharedInformer<R>;
  /** Gives the claim back; the informer stops when its last lease is released. Call it once. */
  release(): Promise<void>;
}

/**
 * Hands out shared informers by what they hold, reference-counted: the first lease creates and
 * the last release stops one. Keep one registry per operator (per process is fine too).
 *
 * @example
 * ```ts
 * import { InformerRegistry, resourceKind } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * // Two users of the same list/watch share one informer: one watch, one cache.
 * const registry = new InformerRegistry();
 * const type = resourceKind({ group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true });
 * const a = registry.acquire({ kubeConfig, type, namespace: 'shop' });
 * const b = registry.acquire({ kubeConfig, type, namespace: 'shop' });
 * console.log(a.informer === b.informer); // true
 * await a.release();
 * await b.release(); // the informer stops with its last lease
 * ```
 */
export class InformerRegistry {
  /**
   * The registry of the caches and event sources built on `client`: the one it holds (given as
   * its `registry` option, or made by an earlier call), else a new one the client keeps.
   * @throws {TypeError} when the client holds a registry of another class.
   * @example
   * ```ts
   * import { InformerRegistry, KubeClient } from '@kindex/informer';
   * import type { KubeConfig } from '@kubernetes/client-node';
   * declare const kubeConfig: KubeConfig;
   *
   * const client = new KubeClient(kubeConfig);
   * console.log(InformerRegistry.of(client) === InformerRegistry.of(client)); // true
   * ```
   */
  static of(client: KubeClient): InformerRegistry {
    return client.registryOf(InformerRegistry);
  }

  readonly #informers = new Map<string, { informer: SharedInformer<KubernetesObject>; refs: number }>();
  readonly #ids = new WeakMap<object, number>();
  #nextId = 1;

  /** Number of live shared informers (for tests and diagnostics). */
  get size(): number {
    return this.#informers.size;
  }

  /** The live shared informers (for metrics and diagnostics). */
  informers(): SharedInformer<KubernetesObject>[] {
    return [...this.#informers.values()].map((e) => e.informer);
  }

  /** The informer for this spec, created on first use. Start it with `informer.start()`. */
  acquire<R extends KubernetesObject>(spec: InformerSpec<R>): InformerLease<R> {
    const key = this.keyOf(spec);
    let entry = this.#informers.get(key);
    if (entry === undefined) {
      entry = { informer: new SharedInformer<R>(key, spec) as unknown as SharedInformer<KubernetesObject>, refs: 0 };
      this.#informers.set(key, entry);
    }
    entry.refs++;
    const held = entry;
    let released = false;
    return {
      informer: held.informer as unknown as SharedInformer<R>,
      release: async () => {
        if (released) return;
        released = true;
        if (--held.refs === 0) {
          this.#informers.delete(key);
          await held.informer.stop();
        }
      },
    };
  }

  /** Stops every informer (at operator shutdown). */
  async stopAll(): Promise<void> {
    const all = [...this.#informers.values()];
    this.#informers.clear();
    await Promise.all(all.map((e) => e.informer.stop()));
  }

  /**
   * The sharing key. Options that only tune the connection (page size, timeouts, backoff) do not
   * split caches; the identity of the KubeConfig and of a custom transform do.
   */
  keyOf<R extends KubernetesObject>(spec: InformerSpec<R>): string {
    const s = spec;
    const transform: string = s.transform === undefined ? 'default' : s.transform === null ? 'none' : `fn${this.#idOf(s.transform)}`;
    return [
      `kc${this.#idOf(s.kubeConfig)}`,
      `${s.type.group}/${s.type.version}/${s.type.plural}`,
      `ns=${s.namespace ?? '*'}`,
      `l=${s.labelSelector ?? ''}`,
      `f=${s.fieldSelector ?? ''}`,
      `s=${typeof s.shardSelector === 'string' ? (s.shardSelector === '' ? '' : ShardSelector.parse(s.shardSelector).toString()) : (s.shardSelector?.toString() ?? '')}`,
      `t=${transform}`,
      ...(s.cluster !== undefined ? [`cluster=${s.cluster}`] : []),
      // A bounded informer holds fewer objects in memory than an unbounded one of the same resource.
      ...(s.bound !== undefined ? [`b=${s.bound.maxObjects ?? ''}/${s.bound.expireAfterAccessMs ?? ''}`] : []),
      // A metadata-only informer holds other objects than a whole one of the same resource.
      ...(s.type.metadataOnly === true ? ['metadata'] : []),
    ].join('|');
  }

  #idOf(o: object): number {
    let id = this.#ids.get(o);
    if (id === undefined) {
      id = this.#nextId++;
      this.#ids.set(o, id);
    }
    return id;
  }
}
