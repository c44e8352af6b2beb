import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { DeleteControl, UnknownOptionError, UpdateControl, type Reconciler } from '@kindex/core';
import {
  InformerEventSource,
  Kinds,
  KubeClient,
  KubernetesDependentResource,
  Operator,
  Workflow,
  leasePermissions,
  resourceKind,
  type ControllerOptions,
  type OperatorOptions,
  type PolicyRule,
  type WrittenResource,
} from '../index.js';
import type { Widget } from '../testing-fixtures/widget.js';

const WidgetKind = resourceKind<Widget>({ group: 'example.com', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });

// rbacManifest() talks to no server: a kubeconfig pointing nowhere proves it.
function offlineKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromClusterAndUser({ name: 'nowhere', server: 'http://127.0.0.1:9', skipTLSVerify: true }, { name: 'nobody' });
  return kubeConfig;
}

const watchingConfigMaps = (cleanup: boolean): Reconciler<Widget, KubeClient> => ({
  reconcile: () => UpdateControl.noUpdate<Widget>(),
  prepareEventSources: (context) => [InformerEventSource.from(Kinds.ConfigMap, WidgetKind).withName('config-maps').build(context)],
  ...(cleanup ? { cleanup: () => DeleteControl.defaultDelete() } : {}),
});

/** The Role rules of namespace `ns` for one controller registered with `options`. */
async function rulesFor(
  reconciler: Reconciler<Widget, KubeClient>,
  options: Omit<ControllerOptions<Widget>, 'kind'>,
  operatorOptions: Omit<OperatorOptions, 'kubeConfig'> = {},
): Promise<{ namespaced: readonly PolicyRule[] | undefined; cluster: readonly PolicyRule[] }> {
  const operator = new Operator({ kubeConfig: offlineKubeConfig(), ...operatorOptions });
  operator.register(reconciler, { kind: WidgetKind, name: 'widgets', namespaces: ['shop'], ...options });
  const manifest = await operator.rbacManifest();
  return { namespaced: manifest.namespacedRules.get('shop'), cluster: manifest.clusterRules };
}

/** Verbs by `group/resource`, easier to read in a failure than the grouped rules. */
function verbsByResource(rules: readonly PolicyRule[] | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const r of rules ?? []) for (const resource of r.resources) out[`${r.apiGroups[0] || 'core'}/${resource}`] = [...r.verbs];
  return out;
}

describe('Operator.rbacManifest (least privilege)', () => {
  it('grants only get, list and watch on a kind an event source watches', async () => {
    const { namespaced, cluster } = await rulesFor(watchingConfigMaps(false), {});
    expect(verbsByResource(namespaced)).to.deep.equal({
      'core/configmaps': ['get', 'list', 'watch'],
      // context.getEventRecorder(): Events beside the primaries (events: false drops it).
      'events.k8s.io/events': ['create', 'patch'],
      'example.com/widgets': ['get', 'list', 'watch'],
      'example.com/widgets/status': ['patch'],
    });
    expect(cluster).to.deep.equal([]);
  });

  it('grants patch on the primary and update on its finalizers when the reconciler has cleanup', async () => {
    const { namespaced } = await rulesFor(watchingConfigMaps(true), {});
    expect(verbsByResource(namespaced)).to.deep.equal({
      'core/configmaps': ['get', 'list', 'watch'],
      // context.getEventRecorder(): Events beside the primaries (events: false drops it).
      'events.k8s.io/events': ['create', 'patch'],
      'example.com/widgets': ['get', 'list', 'watch', 'patch'],
      'example.com/widgets/finalizers': ['update'],
      'example.com/widgets/status': ['patch'],
    });
  });

  it('grants patch on the primary itself, and nothing on /status, without a status subresource', async () => {
    const { namespaced } = await rulesFor(watchingConfigMaps(false), { statusSubresource: false });
    expect(verbsByResource(namespaced)).to.deep.equal({
      'core/configmaps': ['get', 'list', 'watch'],
      // context.getEventRecorder(): Events beside the primaries (events: false drops it).
      'events.k8s.io/events': ['create', 'patch'],
      'example.com/widgets': ['get', 'list', 'watch', 'patch'],
    });
  });

  it("grants a workflow dependent's kind create, patch and delete (server-side apply), and the primary's finalizers", async () => {
    const configMap = new KubernetesDependentResource({
      kind: Kinds.ConfigMap,
      primaryKind: WidgetKind,
      desired: (w) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${w.metadata!.name!}-config` } }),
    });
    const { namespaced } = await rulesFor(
      { reconcile: () => UpdateControl.noUpdate<Widget>() },
      { workflow: new Workflow<Widget>([{ dependent: configMap }]) },
    );
    expect(verbsByResource(namespaced)).to.deep.equal({
      'core/configmaps': ['get', 'list', 'watch', 'create', 'patch', 'delete'],
      'events.k8s.io/events': ['create', 'patch'],
      'example.com/widgets': ['get', 'list', 'watch'],
      // blockOwnerDeletion on the dependents' owner references needs it under OwnerReferencesPermissionEnforcement.
      'example.com/widgets/finalizers': ['update'],
      'example.com/widgets/status': ['patch'],
    });
  });

  it('grants the kinds declared in `writes` their verbs, in the controller namespaces unless told otherwise', async () => {
    const writes: readonly WrittenResource[] = [
      Kinds.Secret,
      { kind: Kinds.Event, verbs: ['create'] },
      { kind: Kinds.ConfigMap, verbs: ['update'], namespaces: ['vault'] },
      { kind: Kinds.Namespace, verbs: ['get'] },
    ];
    const operator = new Operator({ kubeConfig: offlineKubeConfig() });
    operator.register(watchingConfigMaps(false), { kind: WidgetKind, name: 'widgets', namespaces: ['shop'], writes });
    const manifest = await operator.rbacManifest();
    expect(verbsByResource(manifest.namespacedRules.get('shop'))).to.deep.equal({
      'core/configmaps': ['get', 'list', 'watch'],
      // context.getEventRecorder(): Events beside the primaries (events: false drops it).
      'events.k8s.io/events': ['create', 'patch'],
      'core/events': ['create'],
      'core/secrets': ['create', 'update', 'patch', 'delete'],
      'example.com/widgets': ['get', 'list', 'watch'],
      'example.com/widgets/status': ['patch'],
    });
    expect(verbsByResource(manifest.namespacedRules.get('vault'))).to.deep.equal({ 'core/configmaps': ['update'] });
    expect(verbsByResource(manifest.clusterRules)).to.deep.equal({ 'core/namespaces': ['get'] });
  });

  it('grants the Lease verbs leader election and sharding send, in their namespaces', async () => {
    const elected = new Operator({ kubeConfig: offlineKubeConfig(), leaderElection: { leaseName: 'op', leaseNamespace: 'ops' } });
    elected.register(watchingConfigMaps(false), { kind: WidgetKind, name: 'widgets', namespaces: ['shop'] });
    expect(verbsByResource((await elected.rbacManifest()).namespacedRules.get('ops'))).to.deep.equal({
      'coordination.k8s.io/leases': ['get', 'create', 'update'],
    });
    const sharded = new Operator({ kubeConfig: offlineKubeConfig(), sharding: { group: 'op', namespace: 'ops', shards: 2 } });
    sharded.register(watchingConfigMaps(false), { kind: WidgetKind, name: 'widgets', namespaces: ['shop'] });
    const shardedManifest = await sharded.rbacManifest();
    expect(verbsByResource(shardedManifest.namespacedRules.get('ops'))).to.deep.equal({
      'coordination.k8s.io/leases': ['list', 'create', 'update'],
    });
    // Sharding by namespace (the default) lists the Namespaces its shard map balances over: cluster-wide, list only.
    expect(verbsByResource(shardedManifest.clusterRules)).to.deep.equal({ 'core/namespaces': ['list'] });
    expect(leasePermissions({})).to.deep.equal([]);
  });

  it('covers the shard map Lease with the group’s Lease rule: every lease, no resourceNames, the verbs its store sends', async () => {
    const sharded = new Operator({ kubeConfig: offlineKubeConfig(), sharding: { group: 'op', namespace: 'ops', shards: 2 } });
    sharded.register(watchingConfigMaps(false), { kind: WidgetKind, name: 'widgets', namespaces: ['shop'] });
    // The `op-map` Lease is listed with the shard Leases, created once and updated on each new map.
    expect((await sharded.rbacManifest()).namespacedRules.get('ops')).to.deep.equal([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['list', 'create', 'update'] },
    ]);
  });

  it('lists Namespaces for sharding only when it shards by namespace', async () => {
    const byUid = new Operator({
      kubeConfig: offlineKubeConfig(),
      sharding: { group: 'op', namespace: 'ops', shards: 2, field: 'object.metadata.uid' },
    });
    byUid.register(watchingConfigMaps(false), { kind: WidgetKind, name: 'widgets', namespaces: ['shop'] });
    expect((await byUid.rbacManifest()).clusterRules).to.deep.equal([]);
    expect(leasePermissions({ sharding: { namespace: 'ops', field: 'object.metadata.namespace' } }).map((p) => p.resource)).to.deep.equal([
      'leases',
      'namespaces',
    ]);
  });

  it('puts everything in the ClusterRole for a namespace selector, with list and watch on namespaces', async () => {
    const { namespaced, cluster } = await rulesFor(watchingConfigMaps(false), {
      namespaces: undefined,
      namespaceSelector: 'example.com/managed=true',
    });
    expect(namespaced).to.equal(undefined);
    expect(verbsByResource(cluster)).to.deep.equal({
      'core/configmaps': ['get', 'list', 'watch'],
      // context.getEventRecorder(): Events beside the primaries (events: false drops it).
      'events.k8s.io/events': ['create', 'patch'],
      'core/namespaces': ['list', 'watch'],
      'example.com/widgets': ['get', 'list', 'watch'],
      'example.com/widgets/status': ['patch'],
    });
  });

  it('rejects a malformed `writes` entry, naming the controller, the entry and the fix', () => {
    const operator = new Operator({ kubeConfig: offlineKubeConfig() });
    const register = (writes: unknown): unknown =>
      operator.register(watchingConfigMaps(false), {
        kind: WidgetKind,
        name: 'widgets',
        writes: writes as readonly WrittenResource[],
      });
    expect(() => register(['configmaps'])).to.throw(
      TypeError,
      'controller widgets: writes[0] must be a kind (for example Kinds.ConfigMap) or { kind, verbs }, got "configmaps"',
    );
    expect(() => register([Kinds.Secret, { kind: Kinds.ConfigMap, verbs: ['create', 'remove'] }])).to.throw(
      TypeError,
      'controller widgets: writes[1].verbs[1] "remove" is not an RBAC verb; use one of get, list, watch, create, update, patch, delete, deletecollection',
    );
    expect(() => register([{ kind: Kinds.ConfigMap, verb: ['create'] }])).to.throw(
      UnknownOptionError,
      /^Unknown option controller widgets options\.writes\[0\]\.verb \(did you mean "verbs"\?\)\. controller widgets options\.writes\[0\] accepts: kind, namespaces, verbs\./,
    );
    expect(() => register(Kinds.ConfigMap)).to.throw(TypeError, 'controller widgets: writes must be an array of kinds');
  });
});
