import { Mappers, ResourceID, UpdateControl, type Context, type EventSourceContext, type Reconciler } from '@kindex/core';
import { InformerEventSource, type KubeClient } from '@kindex/informer';
import { ClusterKind, JobKind, type Cluster, type Job } from './model.js';

/** Index of the primary (Job) cache: jobs by the cluster they reference. */
export const JOB_CLUSTER_INDEX = 'job-cluster';

/** The index value of a cluster: `clusterName#namespace` (JOSDK's sample key). */
export const indexKey = (clusterName: string, namespace: string | undefined): string => `${clusterName}#${namespace ?? ''}`;

/** Options of {@link JobReconciler}. */
export interface JobReconcilerOptions {
  /**
   * Register the primary-to-secondary mapper (job -> its cluster). Without it,
   * `getSecondaryResource(Cluster)` is empty for a job created after its cluster was indexed:
   * the trap JOSDK documents. Defaults to true.
   */
  readonly withPrimaryToSecondaryMapper?: boolean;
}

/**
 * Copies `spec.clusterValue` of a Job's Cluster into the Job's `status.valueFromCluster`
 * (JOSDK's primary-to-secondary sample).
 *
 * Clusters do not know their jobs, so a Cluster event is mapped to jobs through an index of the
 * Job cache (O(1)), and a Job finds its Cluster through a primary-to-secondary mapper.
 */
export class JobReconciler implements Reconciler<Job, KubeClient> {
  readonly #withP2S: boolean;
  clusters: InformerEventSource<Cluster, Job> | undefined;

  constructor(options: JobReconcilerOptions = {}) {
    this.#withP2S = options.withPrimaryToSecondaryMapper ?? true;
  }

  prepareEventSources(context: EventSourceContext<Job, KubeClient>): InformerEventSource<Cluster, Job>[] {
    context.primaryCache.addIndexer(JOB_CLUSTER_INDEX, (job) => [indexKey(job.spec.clusterName, job.metadata?.namespace)]);
    let builder = InformerEventSource.from(ClusterKind, JobKind)
      .withName('clusters')
      .withNamespacesInheritedFromController()
      .withSecondaryToPrimaryMapper(
        Mappers.fromIndex<Cluster>(context.primaryCache, JOB_CLUSTER_INDEX, (c) => indexKey(c.metadata!.name!, c.metadata?.namespace)),
      );
    if (this.#withP2S) {
      builder = builder.withPrimaryToSecondaryMapper((job) => [ResourceID.of(job.spec.clusterName, job.metadata?.namespace)]);
    }
    this.clusters = builder.build(context);
    return [this.clusters];
  }

  reconcile(job: Job, context: Context<Job, KubeClient>): UpdateControl<Job> {
    const cluster = context.getSecondaryResource(ClusterKind);
    const value = cluster?.spec.clusterValue;
    if (job.status?.valueFromCluster === value) return UpdateControl.noUpdate();
    return UpdateControl.patchStatus<Job>({ ...job, status: { ...job.status, valueFromCluster: value } });
  }
}
