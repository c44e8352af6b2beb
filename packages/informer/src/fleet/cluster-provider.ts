import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@kindex/core';
import type { InformerRegistry } from '../cache/informer-registry.js';
import type { RequiredPermission } from '../rbac/rbac-manifest.js';

/**
 * One member of a fleet: its name, how to reach it, and where the provider found it.
 *
 * @example
 * ```ts
 * import { KubeConfig } from '@kubernetes/client-node';
 * import type { FleetCluster } from '@kindex/informer';
 *
 * const kubeConfig = new KubeConfig();
 * kubeConfig.loadFromFile('/etc/fleet/eu-1.kubeconfig');
 * const cluster: FleetCluster = { name: 'eu-1', kubeConfig, source: 'file /etc/fleet/eu-1.kubeconfig' };
 * ```
 */
export interface FleetCluster {
  /** The cluster's name in logs, metrics and `ClusterClient.cluster`: lowercase letters, digits, `-` and `.`. */
  readonly name: string;
  /** Where and as whom to connect to it. */
  readonly kubeConfig: KubeConfig;
  /**
   * Where the provider found it, for messages (`Secret fleet/eu-1`, `static list entry 0`): a
   * name used twice is reported with both sources.
   */
  readonly source: string;
}

/**
 * What a provider tells the fleet (multicluster-runtime's `Engage`, and the cancel of the
 * context it engaged with).
 *
 * @example
 * ```ts
 * import type { ClusterSink, FleetCluster } from '@kindex/informer';
 * declare const sink: ClusterSink;
 * declare const cluster: FleetCluster;
 *
 * sink.engage(cluster); // again with a changed kubeconfig: re-engaged
 * sink.disengage(cluster.name, cluster.source);
 * ```
 */
export interface ClusterSink {
  /**
   * A cluster to run in. Engaging a name engaged already from the same source re-engages it
   * (its caches start over on the new KubeConfig); from another source, the fleet refuses it
   * with a {@link ClusterNameConflictError}.
   */
  engage(cluster: FleetCluster): void;
  /** A cluster to leave: its controller stops and its caches are dropped. Unknown names are ignored. */
  disengage(name: string, source: string): void;
  /** Bad input the provider skipped (a Secret without its kubeconfig, say): logged, named. */
  problem(error: Error): void;
}

/**
 * What a provider is started with: the fleet to tell, and the operator's own cluster for
 * providers that read it.
 *
 * @example
 * ```ts
 * import type { ClusterProviderContext } from '@kindex/informer';
 * declare const context: ClusterProviderContext;
 * context.logger.info({ home: context.kubeConfig.getCurrentCluster()?.server }, 'provider starting');
 * ```
 */
export interface ClusterProviderContext {
  readonly sink: ClusterSink;
  /** The operator's own cluster. */
  readonly kubeConfig: KubeConfig;
  /** The informers of the operator's own cluster, shared with its controllers. */
  readonly registry: InformerRegistry;
  readonly logger: Logger;
  /** Aborted when the fleet stops. */
  readonly signal: AbortSignal;
}

/**
 * A source of clusters that come and go at run time (multicluster-runtime's `Provider`).
 * Built-ins: {@link StaticClusterProvider} (a list the program holds) and
 * {@link KubeconfigSecretProvider} (kubeconfigs in labelled Secrets of the operator's cluster).
 *
 * Contract: `start` engages the clusters known at start before it resolves (so the fleet's
 * start sees them), then engages and disengages as they change until `stop`. A provider is
 * started by one fleet at a time.
 *
 * @example
 * ```ts
 * import type { ClusterProvider, ClusterProviderContext } from '@kindex/informer';
 * import { KubeConfig } from '@kubernetes/client-node';
 *
 * // Clusters listed in a file, read once.
 * class FileClusterProvider implements ClusterProvider {
 *   readonly name = 'file provider';
 *   constructor(private readonly paths: Record<string, string>) {}
 *   async start(context: ClusterProviderContext): Promise<void> {
 *     for (const [name, path] of Object.entries(this.paths)) {
 *       const kubeConfig = new KubeConfig();
 *       kubeConfig.loadFromFile(path);
 *       context.sink.engage({ name, kubeConfig, source: `file ${path}` });
 *     }
 *   }
 *   async stop(): Promise<void> {}
 * }
 * ```
 */
export interface ClusterProvider {
  /** For messages. */
  readonly name: string;
  /** Engages the clusters known now, then follows changes until `stop`; resolves once those known now are engaged. */
  start(context: ClusterProviderContext): Promise<void>;
  /** Stops following changes; the fleet disengages what it engaged. */
  stop(): Promise<void>;
  /** What it reads in the operator's own cluster, for `Operator.rbacManifest()`. Defaults to nothing. */
  requiredPermissions?(): readonly RequiredPermission[];
}
