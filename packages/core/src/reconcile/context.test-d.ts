// Type-level tests: checked by `tsc -b`, never run. Each @ts-expect-error must stay an error.
import {
  EventProcessor,
  PollingEventSource,
  secondaryType,
  TimerEventSource,
  UpdateControl,
  type Context,
  type EventSource,
  type KubernetesObject,
  type Reconciler,
} from '../index.js';
import { DefaultContext } from '../internal.js';

interface Job extends KubernetesObject {
  spec: { clusterName: string };
  status?: { phase?: string };
}
interface Cluster extends KubernetesObject {
  spec: { size: number };
}

const ClusterType = secondaryType<Cluster>('example.com/v1/Cluster');
declare const clusters: EventSource<Cluster, Job>;
declare const job: Job;

const reconciler: Reconciler<Job> = {
  reconcile(primary, context) {
    const all: Cluster[] = context.getSecondaryResources(ClusterType);
    const one: Cluster | undefined = context.getSecondaryResource(ClusterType);
    // @ts-expect-error the token types the result: Cluster is not Job
    const wrong: Job[] = context.getSecondaryResources(ClusterType);
    void [all, one, wrong];
    return UpdateControl.patchStatus({ ...primary, status: { phase: 'Ready' } });
  },
  prepareEventSources: () => [clusters, new TimerEventSource<Job>()],
};

const polling = new PollingEventSource<Cluster, Job>({ resourceType: ClusterType, periodMs: 1000, fetch: async () => [] });
const context: Context<Job> = new DefaultContext<Job>({
  primary: job,
  eventSources: [clusters, polling, new TimerEventSource<Job>()],
  primaryCache: { get: () => undefined, list: () => [], byIndex: () => [] },
  client: undefined,
});
const size: number | undefined = context.getSecondaryResource(ClusterType)?.spec.size;

new EventProcessor({ dispatch: async () => undefined, sources: [clusters, polling, new TimerEventSource<Job>()] });

// @ts-expect-error patchStatus needs the resource to write
UpdateControl.patchStatus();

void [reconciler, size];
