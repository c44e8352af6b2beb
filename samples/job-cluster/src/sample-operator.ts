import type { KubeConfig } from '@kubernetes/client-node';
import {
  Kinds,
  Operator,
  type Controller,
  type OperatorLeaderElectionOptions,
  type OperatorServerOptions,
  type OperatorShardingOptions,
} from '@kindex/informer';
import { ConfigBundleReconciler } from './config-bundle-reconciler.js';
import { JobReconciler, type JobReconcilerOptions } from './job-reconciler.js';
import { ConfigBundleKind, JobKind, type ConfigBundle, type Job } from './model.js';
import type { Timeline } from './timeline.js';

/** The sample operator: the Job controller and the ConfigBundle controller. */
export interface SampleOperator {
  readonly operator: Operator;
  readonly jobs: Controller<Job>;
  readonly bundles: Controller<ConfigBundle>;
  readonly jobReconciler: JobReconciler;
}

/** Options of {@link createSampleOperator}. */
export interface SampleOperatorOptions extends JobReconcilerOptions {
  readonly kubeConfig: KubeConfig;
  /** Namespaces to reconcile. Defaults to all. */
  readonly namespaces?: readonly string[];
  /** Where to record events. Defaults to nowhere. */
  readonly timeline?: Timeline;
  /** Run as one of several replicas. Defaults to none (one replica). */
  readonly leaderElection?: OperatorLeaderElectionOptions;
  /** Run as one of several replicas that split the primaries by shard. Defaults to none. */
  readonly sharding?: OperatorShardingOptions;
  /** Serve /metrics, /healthz and /readyz. Defaults to no server. */
  readonly server?: OperatorServerOptions;
}

/** Registers the sample's controllers on a new operator (not started). */
export function createSampleOperator(options: SampleOperatorOptions): SampleOperator {
  const operator = new Operator({
    kubeConfig: options.kubeConfig,
    ...(options.leaderElection ? { leaderElection: options.leaderElection } : {}),
    ...(options.sharding ? { sharding: options.sharding } : {}),
    ...(options.server ? { server: options.server } : {}),
  });
  const jobReconciler = new JobReconciler(options);
  const namespaces = options.namespaces ?? 'all';
  const jobs = operator.register(jobReconciler, { kind: JobKind, name: 'jobs', namespaces });
  const bundles = operator.register(new ConfigBundleReconciler(), {
    kind: ConfigBundleKind,
    name: 'configbundles',
    namespaces,
    // The reconciler creates, adopts (patch) and deletes its ConfigMaps itself: the RBAC that
    // `kindex manifests` derives grants exactly these.
    writes: [{ kind: Kinds.ConfigMap, verbs: ['create', 'patch', 'delete'] }],
  });
  if (options.timeline) {
    const timeline = options.timeline;
    jobs.events$.subscribe((e) => timeline.record('Job', e));
    bundles.events$.subscribe((e) => timeline.record('ConfigBundle', e));
  }
  return { operator, jobs, bundles, jobReconciler };
}
