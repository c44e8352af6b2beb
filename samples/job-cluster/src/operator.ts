/**
 * The Job/Cluster operator as it is deployed: its definition, which starts nothing. `kindex
 * manifests` reads it to write deploy/ (`pnpm run manifests`); `main.ts --in-cluster`, the
 * Deployment's command, runs it with `runOperator`: leader election on Lease
 * `job-cluster-operator` in the pod's namespace, probes and metrics on 8080, the timeline on
 * stdout.
 */
import { defineOperator } from '@kindex/informer';
import { ClusterKind, ConfigBundleKind, JobKind } from './model.js';
import { createSampleOperator } from './sample-operator.js';
import { Timeline } from './timeline.js';

export default defineOperator({
  name: 'job-cluster-operator',
  customResources: [ClusterKind, ConfigBundleKind, JobKind],
  // In-flight reconciles get 30 s after SIGTERM; the Deployment's grace period is 15 s more.
  gracefulShutdownTimeoutMs: 30_000,
  create: ({ kubeConfig, namespace }) => {
    const timeline = new Timeline();
    const { operator } = createSampleOperator({
      kubeConfig,
      timeline,
      leaderElection: { leaseName: 'job-cluster-operator', leaseNamespace: namespace },
      server: { port: 8080 },
    });
    // From the first request on: the replayed initial status ('created') says nothing yet.
    operator.leaderElector?.status$.subscribe((s) => {
      if (s.reason !== 'created') timeline.note(`leader election: ${s.role}, lease held by ${s.holderIdentity ?? '(nobody)'}`);
    });
    return operator;
  },
});
