import { Watch, type KubeConfig } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kindex/core';
import { eventually } from './eventually.js';

/**
 * The `type` of a watch event as the API server sends it.
 *
 * @example
 * ```ts
 * import type { WatchEventCollector, WatchEventType } from '@kindex/testing';
 * declare const watch: WatchEventCollector;
 *
 * const counts = new Map<WatchEventType, number>();
 * for (const e of watch.events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
 * ```
 */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/**
 * One event as it arrived on the wire.
 *
 * @example
 * ```ts
 * import { WatchEventCollector, type CollectedWatchEvent } from '@kindex/testing';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const watch = await WatchEventCollector.start(kubeConfig, '/api/v1/namespaces/default/configmaps');
 * const deleted: CollectedWatchEvent = await watch.waitFor((e) => e.type === 'DELETED' && e.object.metadata?.name === 'hello');
 * await watch.stop();
 * ```
 */
export interface CollectedWatchEvent {
  readonly type: WatchEventType;
  /** The object, or for `ERROR` a `Status`. */
  readonly object: KubernetesObject & Record<string, unknown>;
}

/**
 * Query parameters of a watch; `watch=true` is added by client-node.
 *
 * @example
 * ```ts
 * import { WatchEventCollector, type WatchQuery } from '@kindex/testing';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * // Watch from a known resourceVersion, with bookmarks, only our labelled objects.
 * const query: WatchQuery = { resourceVersion: '1200', allowWatchBookmarks: true, labelSelector: 'app=web' };
 * const watch = await WatchEventCollector.start(kubeConfig, '/api/v1/namespaces/default/configmaps', query);
 * ```
 */
export type WatchQuery = Record<string, string | number | boolean | undefined>;

/**
 * Records every event of one watch (through client-node's `Watch`) so that a test can await and
 * assert event sequences.
 *
 * @example
 * ```ts
 * import { WatchEventCollector } from '@kindex/testing';
 * import type { CoreV1Api, KubeConfig, V1ConfigMap } from '@kubernetes/client-node';
 * import { expect } from 'chai';
 * declare const kc: KubeConfig;
 * declare const core: CoreV1Api;
 * declare const ns: string;
 * declare const rv: string;
 * declare const name: string;
 * declare const body: V1ConfigMap;
 * const watch = await WatchEventCollector.start(kc, `/api/v1/namespaces/${ns}/configmaps`, { resourceVersion: rv });
 * await core.createNamespacedConfigMap({ namespace: ns, body });
 * await watch.waitForCount(1);
 * expect(watch.summary()).to.deep.equal([`ADDED ${name}`]);
 * await watch.stop();
 * ```
 */
export class WatchEventCollector {
  readonly #events: CollectedWatchEvent[] = [];
  #controller: AbortController | undefined;
  #ended = false;
  #endError: unknown;

  private constructor() {}

  /** Opens a watch on `path` (for example `/api/v1/namespaces/ns/configmaps`) and starts recording. */
  static async start(kubeConfig: KubeConfig, path: string, query: WatchQuery = {}): Promise<WatchEventCollector> {
    const collector = new WatchEventCollector();
    collector.#controller = await new Watch(kubeConfig).watch(
      path,
      query,
      (type, object) => {
        collector.#events.push({ type: type as WatchEventType, object: object as CollectedWatchEvent['object'] });
      },
      (error) => {
        collector.#ended = true;
        collector.#endError = error;
      },
    );
    return collector;
  }

  /** Every event so far, in arrival order. */
  get events(): readonly CollectedWatchEvent[] {
    return this.#events;
  }

  /** Events other than bookmarks, the ones that describe object changes. */
  get changes(): readonly CollectedWatchEvent[] {
    return this.#events.filter((event) => event.type !== 'BOOKMARK');
  }

  /** Whether the stream has ended (server closed it, an error, or {@link stop}). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Why the stream ended: `null`/`undefined` for a clean close, otherwise the error. */
  get endError(): unknown {
    return this.#endError;
  }

  /** Each non-bookmark event as `TYPE name`, for compact sequence assertions. */
  summary(): string[] {
    return this.changes.map((event) => `${event.type} ${event.object.metadata?.name ?? ''}`.trimEnd());
  }

  /** Resolves with the first recorded event matching `predicate`, waiting for it if needed. */
  async waitFor(predicate: (event: CollectedWatchEvent) => boolean, timeoutMs = 10_000): Promise<CollectedWatchEvent> {
    return eventually(
      () => {
        const found = this.#events.find(predicate);
        if (found === undefined) throw new Error(`no matching watch event among [${this.describe()}]`);
        return found;
      },
      { timeoutMs, intervalMs: 20, description: 'watch event' },
    );
  }

  /** Waits until at least `count` non-bookmark events have arrived. */
  async waitForCount(count: number, timeoutMs = 10_000): Promise<readonly CollectedWatchEvent[]> {
    return eventually(
      () => {
        const changes = this.changes;
        if (changes.length < count) throw new Error(`${changes.length} of ${count} watch events: [${this.describe()}]`);
        return changes;
      },
      { timeoutMs, intervalMs: 20, description: 'watch events' },
    );
  }

  /** Waits until the stream ends and returns why it ended (see {@link endError}). */
  async waitForEnd(timeoutMs = 10_000): Promise<unknown> {
    await eventually(
      () => {
        if (!this.#ended) throw new Error(`watch still open after [${this.describe()}]`);
      },
      { timeoutMs, intervalMs: 20, description: 'watch end' },
    );
    return this.#endError;
  }

  /** Closes the watch from the client side. Idempotent. */
  async stop(): Promise<void> {
    this.#ended = true;
    this.#controller?.abort();
  }

  private describe(): string {
    return this.#events.map((event) => `${event.type} ${event.object.metadata?.name ?? ''}`.trimEnd()).join(', ');
  }
}
