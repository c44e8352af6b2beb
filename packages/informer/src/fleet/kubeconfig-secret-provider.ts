import { KubeConfig } from '@kubernetes/client-node';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import { InformerCache } from '../cache/informer-cache.js';
import { Kinds, type ObjectOfKind } from '../kind/resource-kind.js';
import { checkRemoteCluster } from '../source/remote-cluster.js';
import type { ClusterProvider, ClusterProviderContext, ClusterSink } from './cluster-provider.js';
import { KubeconfigSecretError } from './fleet-errors.js';
import type { RequiredPermission } from '../rbac/rbac-manifest.js';

type Secret = ObjectOfKind<typeof Kinds.Secret>;

/**
 * The label {@link KubeconfigSecretProvider} looks for by default: multicluster-runtime's
 * kubeconfig provider's, so Secrets made for it serve kindex as they are.
 *
 * @example
 * ```ts
 * import { DEFAULT_KUBECONFIG_SECRET_LABEL } from '@kindex/informer/internal';
 * // kubectl -n fleet label secret eu-1 sigs.k8s.io/multicluster-runtime-kubeconfig=true
 * const labels = { [DEFAULT_KUBECONFIG_SECRET_LABEL]: 'true' };
 * ```
 */
export const DEFAULT_KUBECONFIG_SECRET_LABEL = 'sigs.k8s.io/multicluster-runtime-kubeconfig';

/**
 * Options of {@link KubeconfigSecretProvider}.
 *
 * @example
 * ```ts
 * import type { KubeconfigSecretProviderOptions } from '@kindex/informer';
 * const options: KubeconfigSecretProviderOptions = { namespace: 'fleet', labelSelector: 'example.com/fleet=prod', key: 'value' };
 * ```
 */
export interface KubeconfigSecretProviderOptions {
  /** The namespace of the Secrets, in the operator's own cluster. */
  readonly namespace: string;
  /** Which Secrets describe clusters. Defaults to `sigs.k8s.io/multicluster-runtime-kubeconfig=true`. */
  readonly labelSelector?: string;
  /** The data key holding the kubeconfig. Defaults to `kubeconfig`. */
  readonly key?: string;
}

const KUBECONFIG_SECRET_PROVIDER_OPTIONS = defineOptions<KubeconfigSecretProviderOptions>('KubeconfigSecretProvider options', {
  namespace: Type.String({ minLength: 1, description: 'the namespace of the kubeconfig Secrets' }),
  labelSelector: Type.Optional(Type.String({ description: "a label selector such as 'example.com/fleet=prod'" })),
  key: Type.Optional(Type.String({ minLength: 1, description: 'the data key holding the kubeconfig' })),
});

/**
 * Clusters from kubeconfigs kept in labelled Secrets of the operator's own cluster
 * (multicluster-runtime's kubeconfig provider): a Secret added engages the cluster named after
 * it, a changed kubeconfig re-engages it, a Secret deleted (or relabelled) disengages it. It
 * watches the Secrets with an informer on the operator's registry: reads are cached, and the
 * operator's RBAC must let it list and watch Secrets in `namespace`.
 *
 * A Secret whose key is missing, empty or not a kubeconfig is reported (a
 * {@link KubeconfigSecretError} naming namespace/name, the key and the fix) and its cluster, if
 * engaged, is disengaged; the other Secrets are not affected.
 *
 * @example
 * ```ts
 * import { KubeconfigSecretProvider } from '@kindex/informer';
 *
 * // kubectl -n fleet create secret generic eu-1 --from-file=kubeconfig=eu-1.yaml
 * // kubectl -n fleet label secret eu-1 sigs.k8s.io/multicluster-runtime-kubeconfig=true
 * const clusters = new KubeconfigSecretProvider({ namespace: 'fleet' });
 * ```
 */
export class KubeconfigSecretProvider implements ClusterProvider {
  readonly name: string;
  readonly namespace: string;
  readonly labelSelector: string;
  readonly key: string;
  #cache: InformerCache<Secret> | undefined;
  /** The kubeconfig text each engaged Secret was engaged with: an update that leaves it alone re-engages nothing. */
  readonly #engaged = new Map<string, string>();

  constructor(options: KubeconfigSecretProviderOptions) {
    KUBECONFIG_SECRET_PROVIDER_OPTIONS.check(options);
    this.namespace = options.namespace;
    this.labelSelector = options.labelSelector ?? `${DEFAULT_KUBECONFIG_SECRET_LABEL}=true`;
    this.key = options.key ?? 'kubeconfig';
    this.name = `kubeconfig Secrets in ${this.namespace} (${this.labelSelector})`;
  }

  /** Starts the Secret informer; resolves once the Secrets listed at start are engaged. */
  async start(context: ClusterProviderContext): Promise<void> {
    const cache = new InformerCache<Secret>({
      name: this.name,
      kubeConfig: context.kubeConfig,
      kind: Kinds.Secret,
      registry: context.registry,
      namespaces: [this.namespace],
      labelSelector: this.labelSelector,
    });
    this.#cache = cache;
    cache.onDelta((delta) => {
      if (delta.type === 'delete') this.#forget(delta.object, context.sink);
      else this.#read(delta.object, context.sink);
    });
    await cache.start({ signal: context.signal });
    // The deltas of the first list engaged them already; a repeat changes nothing.
    for (const secret of cache.list()) this.#read(secret, context.sink);
  }

  /** List and watch of Secrets in its namespace, for `Operator.rbacManifest()`. */
  requiredPermissions(): readonly RequiredPermission[] {
    const neededBy = `cluster provider ${this.name}`;
    return [{ group: '', resource: 'secrets', verbs: ['list', 'watch'], namespaces: [this.namespace], clusterScoped: false, neededBy }];
  }

  /** Stops watching the Secrets; the fleet disengages their clusters. */
  async stop(): Promise<void> {
    await this.#cache?.stop();
    this.#cache = undefined;
    this.#engaged.clear();
  }

  #read(secret: Secret, sink: ClusterSink): void {
    const name = secret.metadata?.name ?? '';
    const namespace = secret.metadata?.namespace ?? this.namespace;
    const encoded = secret.data?.[this.key];
    const fail = (problem: string, fix: string, cause?: unknown): void => {
      sink.problem(new KubeconfigSecretError(namespace, name, this.key, problem, fix, cause === undefined ? undefined : { cause }));
      this.#forget(secret, sink);
    };
    if (encoded === undefined || encoded === '') {
      const keys = Object.keys(secret.data ?? {});
      fail(
        `no kubeconfig under data key ${JSON.stringify(this.key)}${keys.length > 0 ? ` (it has ${keys.map((k) => JSON.stringify(k)).join(', ')})` : ''}`,
        `put the cluster's kubeconfig there: kubectl -n ${namespace} create secret generic ${name} --from-file=${this.key}=<kubeconfig file>`,
      );
      return;
    }
    const text = Buffer.from(encoded, 'base64').toString('utf8');
    if (this.#engaged.get(name) === text) return;
    const kubeConfig = new KubeConfig();
    let cluster;
    try {
      kubeConfig.loadFromString(text);
      cluster = checkRemoteCluster(`Secret ${namespace}/${name}`, { name, kubeConfig });
    } catch (error) {
      fail(
        `data key ${JSON.stringify(this.key)} is not a usable kubeconfig (${error instanceof Error ? error.message : String(error)})`,
        'store a kubeconfig with a current context, its cluster and its user there',
        error,
      );
      return;
    }
    this.#engaged.set(name, text);
    sink.engage({ ...cluster, source: `Secret ${namespace}/${name}` });
  }

  #forget(secret: Secret, sink: ClusterSink): void {
    const name = secret.metadata?.name ?? '';
    if (!this.#engaged.delete(name)) return;
    sink.disengage(name, `Secret ${secret.metadata?.namespace ?? this.namespace}/${name}`);
  }
}
