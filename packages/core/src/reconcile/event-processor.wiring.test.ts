import { expect } from 'chai';
import { Subject } from 'rxjs';
import {
  BucketRateLimiter,
  EventProcessor,
  FakeClock,
  GenericRetry,
  PollingEventSource,
  ResourceID,
  secondaryType,
  TimerEventSource,
  UpdateControl,
  type EventSource,
  type KubernetesObject,
  type PrimaryCacheReader,
  type ReconcileDispatcher,
  type Reconciler,
  type Trigger,
} from '../index.js';
import { DefaultContext } from '../internal.js';

interface Job extends KubernetesObject {
  spec: { bucket: string };
  status?: { size?: number };
}
interface Bucket {
  readonly name: string;
  readonly size: number;
}
const BucketType = secondaryType<Bucket>('s3/Bucket');
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * The shape the Kubernetes layer gives a controller, reduced to core: a primary cache, sources,
 * a dispatcher that builds a DefaultContext and applies the UpdateControl to the cache.
 */
function miniController(clock: FakeClock, reconciler: Reconciler<Job>, sources: EventSource<unknown, Job>[]) {
  const jobs = new Map<string, Job>();
  const cache: PrimaryCacheReader<Job> = {
    get: (id) => jobs.get(typeof id === 'string' ? id : id.key),
    list: () => [...jobs.values()],
    byIndex: () => [],
  };
  const primaryEvents = new Subject<Trigger>();
  const dispatch: ReconcileDispatcher = async (key, { retryInfo }) => {
    const job = jobs.get(key);
    if (job === undefined) return;
    const context = new DefaultContext({ primary: job, eventSources: sources, primaryCache: cache, client: undefined, retryInfo });
    const control = await reconciler.reconcile(job, context);
    if (control.isPatchStatus && control.resource !== undefined) jobs.set(key, control.resource);
    return { rescheduleAfterMs: control.scheduleDelayMs };
  };
  const processor = new EventProcessor({
    dispatch,
    clock,
    sources: [primaryEvents, ...sources],
    maxReconciliationIntervalMs: undefined,
    reconcileTimeoutMs: undefined,
  });
  const upsert = (job: Job): void => {
    const id = ResourceID.fromResource(job);
    jobs.set(id.key, job);
    primaryEvents.next({ primaryIds: [id], source: 'jobs', cause: { type: 'resource', event: 'create', objectKey: id.key } });
  };
  return { jobs, processor, upsert };
}

describe('EventProcessor wired to sources and DefaultContext', () => {
  it('reconciles from polled secondaries and again when they change, and on timer schedules', async () => {
    const clock = new FakeClock();
    const sizes = new Map([['ns/job-1', 3]]);
    const buckets = new PollingEventSource<Bucket, Job>({
      resourceType: BucketType,
      periodMs: 1000,
      clock,
      fetch: async () => [...sizes].map(([key, size]) => [key, [{ name: 'b', size }]] as const),
    });
    const timers = new TimerEventSource<Job>({ clock });
    const seenSizes: (number | undefined)[] = [];
    const reconciler: Reconciler<Job> = {
      reconcile(job, context) {
        const bucket = context.getSecondaryResource(BucketType);
        seenSizes.push(bucket?.size);
        return UpdateControl.patchStatus({ ...job, status: { size: bucket?.size } });
      },
    };
    const c = miniController(clock, reconciler, [buckets, timers]);
    await buckets.start();
    await timers.start();
    c.processor.start();

    c.upsert({ metadata: { name: 'job-1', namespace: 'ns' }, spec: { bucket: 'b' } });
    await tick();
    expect(seenSizes).to.deep.equal([3]);
    expect(c.jobs.get('ns/job-1')?.status?.size).to.equal(3);

    sizes.set('ns/job-1', 7);
    await clock.advance(1000);
    expect(seenSizes).to.deep.equal([3, 7]);
    expect(c.jobs.get('ns/job-1')?.status?.size).to.equal(7);

    timers.scheduleOnce(ResourceID.of('job-1', 'ns'), 50);
    await clock.advance(50);
    expect(seenSizes).to.deep.equal([3, 7, 7]);

    await c.processor.stop();
    await buckets.stop();
    await timers.stop();
  });

  it('spaces the retries of many failing primaries with the overall rate limiter', async () => {
    const clock = new FakeClock();
    const starts: [string, number][] = [];
    const processor = new EventProcessor({
      clock,
      concurrency: 5,
      retry: new GenericRetry({ maxAttempts: 1, initialIntervalMs: 10 }),
      rateLimiter: new BucketRateLimiter({ qps: 10, burst: 1, clock }),
      maxReconciliationIntervalMs: undefined,
      reconcileTimeoutMs: undefined,
      dispatch: async (key) => {
        starts.push([key, clock.now()]);
        throw new Error('down');
      },
    });
    processor.start();
    for (const name of ['a', 'b', 'c', 'd']) processor.enqueue(ResourceID.of(name));
    await tick();
    await clock.advance(1000);
    const retryTimes = starts.slice(4).map(([, at]) => at);
    // one token at once (after the 10 ms retry delay), then one every 100 ms
    expect(retryTimes).to.deep.equal([10, 100, 200, 300]);
    await processor.stop();
  });
});
