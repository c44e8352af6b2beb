// Type-level tests: checked by `tsc -b`, never run. Each @ts-expect-error must stay an error.
// A reconciler class written as the README's tour writes it (no return type annotation) must
// satisfy `Reconciler<Job>`: `noUpdate()` in one branch must not widen the inferred return type
// to `UpdateControl<KubernetesObject>` (TS2416 under `strict`).
import { ErrorStatusUpdateControl, UpdateControl, type Context, type KubernetesObject, type Reconciler } from '../index.js';

interface Job extends KubernetesObject {
  spec: { clusterName: string };
  status?: { valueFromCluster?: string; error?: string };
}

class JobReconciler implements Reconciler<Job> {
  reconcile(job: Job, _context: Context<Job>) {
    if (job.status?.valueFromCluster === 'a') return UpdateControl.noUpdate();
    if (job.status?.valueFromCluster === 'b') return UpdateControl.noUpdate().rescheduleAfter(1000);
    return UpdateControl.patchStatus({ ...job, status: { valueFromCluster: 'a' } });
  }

  updateErrorStatus(job: Job, _context: Context<Job>, error: unknown) {
    if (job.status?.error === String(error)) return ErrorStatusUpdateControl.noStatusUpdate();
    return ErrorStatusUpdateControl.patchStatus({ ...job, status: { error: String(error) } });
  }
}

class AsyncJobReconciler implements Reconciler<Job> {
  async reconcile(job: Job) {
    await Promise.resolve();
    if (job.status?.valueFromCluster === 'a') return UpdateControl.noUpdate();
    return UpdateControl.patchResource({ ...job, spec: { clusterName: 'alpha' } });
  }
}

// A control with nothing to write fits every primary type, and still reads as one.
const nothing = UpdateControl.noUpdate();
const forJob: UpdateControl<Job> = nothing;
const forAny: UpdateControl = nothing;
const resource: undefined = nothing.resource;

// The primary type still binds: a control for another kind is not a Job's.
interface Cluster extends KubernetesObject {
  spec: { size: number };
}
declare const cluster: Cluster;
// @ts-expect-error a Cluster is not a Job
const wrong: UpdateControl<Job> = UpdateControl.patchStatus(cluster);

class WrongReconciler implements Reconciler<Job> {
  // @ts-expect-error reconcile must return a Job's control, not a Cluster's
  reconcile() {
    return UpdateControl.patchStatus(cluster);
  }
}

void [JobReconciler, AsyncJobReconciler, WrongReconciler, forJob, forAny, resource, wrong];
