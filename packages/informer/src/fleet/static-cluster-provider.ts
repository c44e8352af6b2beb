import { checkRemoteCluster, type RemoteCluster } from '../source/remote-cluster.js';
import type { ClusterProvider, ClusterProviderContext, ClusterSink, FleetCluster } from './cluster-provider.js';
import { ClusterNameConflictError } from '../source/cluster-name-conflict-error.js';

/**
 * A fleet the program knows: clusters given as a list, changed at run time with `add` and
 * `remove` (multicluster-runtime's `clusters` provider). For fleets read from files or from a
 * registry of your own; for kubeconfigs kept in Secrets use {@link KubeconfigSecretProvider}.
 *
 * @example
 * ```ts
 * import { KubeConfig } from '@kubernetes/client-node';
 * import { StaticClusterProvider } from '@kindex/informer';
 *
 * const load = (path: string): KubeConfig => {
 *   const kubeConfig = new KubeConfig();
 *   kubeConfig.loadFromFile(path);
 *   return kubeConfig;
 * };
 * const clusters = new StaticClusterProvider([
 *   { name: 'eu-1', kubeConfig: load('/etc/fleet/eu-1.kubeconfig') },
 *   { name: 'us-1', kubeConfig: load('/etc/fleet/us-1.kubeconfig') },
 * ]);
 * // Later, while the operator runs:
 * clusters.add({ name: 'ap-1', kubeConfig: load('/etc/fleet/ap-1.kubeconfig') });
 * clusters.remove('us-1');
 * ```
 */
export class StaticClusterProvider implements ClusterProvider {
  /** For messages: each cluster's source is `<name> entry <n>`. */
  readonly name: string;
  readonly #clusters = new Map<string, FleetCluster>();
  #sink: ClusterSink | undefined;
  #added = 0;

  /**
   * Throws {@link ClusterNameConflictError} when two entries share a name, and a TypeError naming
   * a malformed entry. `options.name` names the list in messages. Defaults to `static cluster list`.
   */
  constructor(clusters: readonly RemoteCluster[] = [], options: { readonly name?: string } = {}) {
    this.name = options.name ?? 'static cluster list';
    for (const cluster of clusters) this.add(cluster);
  }

  /** The clusters listed now. */
  get clusters(): readonly FleetCluster[] {
    return [...this.#clusters.values()];
  }

  /**
   * Adds a cluster (engaged at once when the fleet runs). Throws {@link ClusterNameConflictError}
   * when the name is listed already: `remove` it first to replace it.
   */
  add(cluster: RemoteCluster): void {
    const source = `${this.name} entry ${this.#added}`;
    const { name, kubeConfig } = checkRemoteCluster(source, cluster);
    const held = this.#clusters.get(name);
    if (held !== undefined) throw new ClusterNameConflictError(name, held.source, source);
    this.#added++;
    const entry: FleetCluster = Object.freeze({ name, kubeConfig, source });
    this.#clusters.set(name, entry);
    this.#sink?.engage(entry);
  }

  /** Removes a cluster (disengaged at once when the fleet runs); false when it was not listed. */
  remove(name: string): boolean {
    const held = this.#clusters.get(name);
    if (held === undefined) return false;
    this.#clusters.delete(name);
    this.#sink?.disengage(name, held.source);
    return true;
  }

  /** Engages every listed cluster. */
  async start(context: ClusterProviderContext): Promise<void> {
    this.#sink = context.sink;
    for (const cluster of this.#clusters.values()) context.sink.engage(cluster);
  }

  /** Stops telling the fleet; the list stays for a later start. */
  async stop(): Promise<void> {
    this.#sink = undefined;
  }
}
