import { expect } from 'chai';
import { UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { catchUnknownOptions } from '@kindex/testing/internal';
import {
  Controller,
  InformerCache,
  InformerEventSource,
  InformerRegistry,
  Kinds,
  KubeClient,
  KubeLeaseStore,
  KubernetesDependentResource,
  KubeShardLeaseStore,
  LeaderElector,
  matchesAppliedFields,
  Operator,
  OperatorMetrics,
  OperatorServer,
  ShardCoordinator,
  Workflow,
  fromAnnotations,
  fromLabels,
  fromOwnerReferences,
  rbacManifest,
  Reflector,
  requiredPermissions,
} from '../index.js';
import { SourceHealthMonitor, resolveResourceType } from '../internal.js';
import { offlineKubeConfig } from '../testing-fixtures/offline-kube-config.js';

// Every options object of @kindex/informer rejects keys it does not know, naming all of them with
// their paths and the closest accepted key. No API server is needed: each check
// runs where the options are handed in, before anything connects.

const kubeConfig = offlineKubeConfig();
const client = new KubeClient(kubeConfig);
const noop: Reconciler<KubernetesObject, KubeClient> = { reconcile: () => UpdateControl.noUpdate() };
const election = { leaseName: 'op', leaseNamespace: 'ops' };
const sharding = { group: 'op', namespace: 'ops', shards: 3 };
const dependent = (): KubernetesDependentResource<KubernetesObject, KubernetesObject> =>
  new KubernetesDependentResource({ kind: Kinds.ConfigMap, primaryKind: Kinds.ConfigMap, desired: () => ({ metadata: { name: 'x' } }) });

interface Site {
  readonly site: string;
  readonly attempt: () => unknown;
  /** Each unknown key's full path and the suggestion, in the order of the object. */
  readonly unknown: readonly (readonly [path: string, suggestion: string | undefined])[];
}

const SITES: readonly Site[] = [
  {
    site: 'Operator: a misspelt leaderElection is not ignored (the operator would run without it)',
    attempt: () => new Operator({ kubeConfig, leaderElecton: election } as never),
    unknown: [['Operator options.leaderElecton', 'leaderElection']],
  },
  {
    site: 'Operator: every unknown key at once, nested ones included (server, sharding)',
    attempt: () =>
      new Operator({
        kubeConfig,
        cacheSyncTimeout: 5,
        loger: 'info',
        server: { port: 0, hots: '::' },
        sharding: { ...sharding, grop: 'x' },
      } as never),
    unknown: [
      ['Operator options.cacheSyncTimeout', 'cacheSyncTimeoutMs'],
      ['Operator options.loger', 'logger'],
      ['Operator options.server.hots', 'host'],
      ['Operator options.sharding.grop', 'group'],
    ],
  },
  {
    site: 'Operator: leaderElection and metrics',
    attempt: () =>
      new Operator({ kubeConfig, leaderElection: { ...election, leaseDuration: 1 }, metrics: { procesMetrics: false } } as never),
    unknown: [
      ['Operator options.leaderElection.leaseDuration', 'leaseDurationMs'],
      ['Operator options.metrics.procesMetrics', 'processMetrics'],
    ],
  },
  {
    site: 'Operator.register: the controller names every unknown key, not only the first',
    attempt: () => new Operator({ kubeConfig }).register(noop, { kind: Kinds.ConfigMap, namespace: ['a'], labelselector: 'a=b' } as never),
    unknown: [
      ['controller configmaps.core options.namespace', 'namespaces'],
      ['controller configmaps.core options.labelselector', 'labelSelector'],
    ],
  },
  {
    site: 'Operator.register: its own distribution option too',
    attempt: () => new Operator({ kubeConfig }).register(noop, { kind: Kinds.ConfigMap, distributon: 'every-replica' } as never),
    unknown: [['controller configmaps.core options.distributon', 'distribution']],
  },
  {
    site: 'controller reflector and its backoff',
    attempt: () =>
      new Controller(noop, { kind: Kinds.ConfigMap, name: 'maps', reflector: { pageSize: 5, backoff: { maxMS: 1 } } } as never, client),
    unknown: [['controller maps options.reflector.backoff.maxMS', 'maxMs']],
  },
  {
    site: 'Operator.start',
    attempt: () => new Operator({ kubeConfig }).start({ cacheSyncTimeout: 1 } as never),
    unknown: [['Operator.start options.cacheSyncTimeout', 'cacheSyncTimeoutMs']],
  },
  {
    site: 'Operator.run',
    attempt: () => new Operator({ kubeConfig }).run({ gracefulShutdownTimeout: 1, exit: false } as never),
    unknown: [['Operator.run options.gracefulShutdownTimeout', 'gracefulShutdownTimeoutMs']],
  },
  {
    site: 'Operator.stop',
    attempt: () => new Operator({ kubeConfig }).stop({ drainTimeout: 1 } as never),
    unknown: [['Operator.stop options.drainTimeout', 'drainTimeoutMs']],
  },
  {
    site: 'Operator.rbacManifest',
    attempt: () => new Operator({ kubeConfig }).rbacManifest({ secondaryverbs: ['get'], subject: { kind: 'User', nmae: 'me' } } as never),
    unknown: [
      ['Operator.rbacManifest options.secondaryverbs', 'secondaryVerbs'],
      ['Operator.rbacManifest options.subject.nmae', 'name'],
    ],
  },
  {
    site: 'Controller.start and Controller.stop',
    attempt: async () => {
      const controller = new Controller(noop, { kind: Kinds.ConfigMap, name: 'maps' }, client);
      await catchUnknownOptions(
        () => controller.stop({ drainTimeoutMS: 1 } as never),
        [['controller maps stop options.drainTimeoutMS', 'drainTimeoutMs']],
      );
      return controller.start({ signl: new AbortController().signal } as never);
    },
    unknown: [['controller maps start options.signl', 'signal']],
  },
  {
    site: 'rbacManifest and requiredPermissions',
    attempt: async () => {
      await catchUnknownOptions(
        () => requiredPermissions([], { extraPermission: [] } as never),
        [['requiredPermissions options.extraPermission', 'extraPermissions']],
      );
      return rbacManifest([], { nam: 'x', secondaryVerbs: [] } as never);
    },
    unknown: [
      ['rbacManifest options.nam', 'name'],
      ['rbacManifest options.secondaryVerbs', undefined],
    ],
  },
  {
    site: 'KubeClient',
    attempt: () => new KubeClient(kubeConfig, { fieldmanager: 'me' } as never),
    unknown: [['KubeClient options.fieldmanager', 'fieldManager']],
  },
  {
    site: 'KubeClient.apply',
    attempt: () =>
      client.apply(Kinds.ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'y' } }, {
        forse: true,
      } as never),
    unknown: [['KubeClient.apply options.forse', 'force']],
  },
  {
    site: 'KubeClient.list',
    attempt: () => client.list(Kinds.ConfigMap, { namespase: 'y' } as never),
    unknown: [['KubeClient.list options.namespase', 'namespace']],
  },
  {
    site: 'Reflector, with its backoff',
    attempt: () => new Reflector({ kubeConfig, type: Kinds.ConfigMap, namespce: 'a', backoff: { jiter: 0 } } as never),
    unknown: [
      ['Reflector options.namespce', 'namespace'],
      ['Reflector options.backoff.jiter', 'jitter'],
    ],
  },
  {
    site: 'InformerCache, with its reflector options',
    attempt: () =>
      new InformerCache({
        name: 'maps',
        kubeConfig,
        kind: Kinds.ConfigMap,
        registry: new InformerRegistry(),
        labelselector: 'a=b',
        reflector: { watchTimeoutSecond: 5 },
      } as never),
    unknown: [
      ['InformerCache options (maps).labelselector', 'labelSelector'],
      ['InformerCache options (maps).reflector.watchTimeoutSecond', 'watchTimeoutSeconds'],
    ],
  },
  {
    site: 'Reflector.waitForSync and InformerCache.start',
    attempt: async () => {
      const reflector = new Reflector({ kubeConfig, type: Kinds.ConfigMap });
      await catchUnknownOptions(
        () => reflector.waitForSync({ timeout: 1 } as never),
        [['Reflector.waitForSync options.timeout', 'timeoutMs']],
      );
      const cache = new InformerCache({ name: 'maps', kubeConfig, kind: Kinds.ConfigMap, registry: new InformerRegistry() });
      return cache.start({ failfast: false } as never);
    },
    unknown: [['InformerCache maps start options.failfast', 'failFast']],
  },
  {
    site: 'resolveResourceType (before it asks the server)',
    attempt: () => resolveResourceType(kubeConfig, 'v1', 'ConfigMap', { inactivityTimeout: 1 } as never),
    unknown: [['resolveResourceType options.inactivityTimeout', 'inactivityTimeoutMs']],
  },
  {
    site: 'matchesAppliedFields',
    attempt: () => matchesAppliedFields({}, {}, 'me', { subResource: 'status' } as never),
    unknown: [['matchesAppliedFields options.subResource', 'subresource']],
  },
  {
    site: 'SourceHealthMonitor',
    attempt: () =>
      new SourceHealthMonitor({ registry: new InformerRegistry(), controllers: () => [], unhealthyAfterMs: 1, sampleEvery: 1 } as never),
    unknown: [['SourceHealthMonitor options.sampleEvery', 'sampleEveryMs']],
  },
  {
    site: 'OperatorServer',
    attempt: () => new OperatorServer({ port: 0, debg: true } as never, {} as never),
    unknown: [['OperatorServer options.debg', 'debug']],
  },
  {
    site: 'OperatorMetrics',
    attempt: () => new OperatorMetrics({ registy: undefined } as never),
    unknown: [['OperatorMetrics options.registy', 'registry']],
  },
  {
    site: 'LeaderElector',
    attempt: () => new LeaderElector({ store: new KubeLeaseStore(client, { name: 'l', namespace: 'n' }), renewDeadline: 1 } as never),
    unknown: [['LeaderElector options.renewDeadline', 'renewDeadlineMs']],
  },
  {
    site: 'ShardCoordinator',
    attempt: () =>
      new ShardCoordinator({
        group: 'g',
        shards: 2,
        identity: 'me',
        store: new KubeShardLeaseStore(client, { name: 'g', namespace: 'n' }),
        retryPeriod: 1,
      } as never),
    unknown: [['ShardCoordinator options.retryPeriod', 'retryPeriodMs']],
  },
  {
    site: 'InformerEventSource builder: reflector options and their backoff',
    attempt: () =>
      InformerEventSource.from(Kinds.ConfigMap)
        .withName('maps')
        .withReflectorOptions({ pagesize: 10, backoff: { intialMs: 1 } } as never),
    unknown: [
      ['event source maps reflector options.pagesize', 'pageSize'],
      ['event source maps reflector options.backoff.intialMs', 'initialMs'],
    ],
  },
  {
    site: 'KubernetesDependentResource',
    attempt: () =>
      new KubernetesDependentResource({
        kind: Kinds.ConfigMap,
        primaryKind: Kinds.ConfigMap,
        name: 'config',
        desired: () => ({}),
        fieldmanager: 'x',
      } as never),
    unknown: [['KubernetesDependentResource options (config).fieldmanager', 'fieldManager']],
  },
  {
    site: 'Workflow nodes',
    attempt: () => new Workflow([{ dependent: dependent(), activationConditon: () => false }] as never),
    unknown: [['Workflow node [0] (v1/ConfigMap).activationConditon', 'activationCondition']],
  },
  {
    site: 'fromOwnerReferences',
    attempt: () => fromOwnerReferences({ group: 'apps', kind: 'Deployment', onProblm: () => {} } as never),
    unknown: [['fromOwnerReferences options.onProblm', 'onProblem']],
  },
  {
    site: 'fromAnnotations and fromLabels, with the nested type',
    attempt: async () => {
      await catchUnknownOptions(() => fromLabels({ namekey: 'x' } as never), [['fromLabels options.namekey', 'nameKey']]);
      return fromAnnotations({ nameKey: 'x', type: { value: 'v', kye: 'k' } } as never);
    },
    unknown: [['fromAnnotations options.type.kye', 'key']],
  },
];

describe('unknown option keys at every options site of @kindex/informer', () => {
  for (const { site, attempt, unknown } of SITES) {
    it(`rejects them: ${site}`, async () => {
      await catchUnknownOptions(attempt, unknown);
    });
  }

  it('lists the accepted keys of the level of each unknown key', async () => {
    const error = await catchUnknownOptions(() => new Operator({ kubeConfig, server: { port: 0, hots: '::' } } as never));
    expect(error.unknown[0]!.accepted).to.deep.equal(['debug', 'healthProbePort', 'host', 'port', 'secure', 'unhealthyAfterMs']);
    expect(error.message).to.equal(
      'Unknown option Operator options.server.hots (did you mean "host"?). ' +
        'Operator options.server accepts: debug, healthProbePort, host, port, secure, unhealthyAfterMs. Rename or remove it.',
    );
  });

  it('accepts every documented key, nested ones included', async () => {
    const operator = new Operator({
      kubeConfig,
      fieldManager: 'me',
      cacheSyncTimeoutMs: 1_000,
      logger: 'silent',
      metrics: { processMetrics: false },
      server: {
        port: 0,
        host: '127.0.0.1',
        debug: true,
        unhealthyAfterMs: 1_000,
        secure: {
          certFile: 'tls.crt',
          keyFile: 'tls.key',
          reviewCacheTtl: { authenticatedMs: 1, rejectedMs: 1, allowedMs: 1, deniedMs: 1 },
        },
        healthProbePort: 0,
      },
      leaderElection: {
        ...election,
        onLost: 'standby',
        identity: 'me',
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
        releaseOnCancel: true,
      },
    });
    operator.register(noop, {
      kind: Kinds.ConfigMap,
      namespaces: ['a'],
      reflector: {
        pageSize: 10,
        watchTimeoutSeconds: 60,
        inactivityTimeoutMs: 1_000,
        backoff: { initialMs: 1, maxMs: 2, factor: 2, jitter: 0, resetAfterMs: 3 },
      },
    });
    const manifest = await operator.rbacManifest({
      name: 'op',
      subject: { kind: 'ServiceAccount', name: 'op', namespace: 'ops' },
      secondaryVerbs: ['get'],
    });
    expect(manifest).to.not.equal(undefined);
    new Operator({ kubeConfig, sharding: { ...sharding, field: 'object.metadata.namespace', identity: 'me', leaseDurationMs: 15_000 } });
    new Workflow([{ dependent: dependent(), dependsOn: [], activationCondition: () => true, reconcilePrecondition: () => true }]);
  });
});
