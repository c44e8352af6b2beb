import {
  DeleteControl,
  ResourceID,
  type DispatchRequest,
  type DispatchResult,
  type ErrorStatusUpdateControl,
  type EventRecorder,
  type EventSource,
  type KubernetesObject,
  type Logger,
  type Reconciler,
  type RetryInfo,
  type UpdateControl,
} from '@kindex/core';
import { DefaultContext, type DefaultContextOptions } from '@kindex/core/internal';
import type { InformerCache } from '../cache/informer-cache.js';
import type { KubeClient } from '../client/kube-client.js';
import type { Workflow } from '../dependent/workflow.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import { reconcileLogFields } from '../logging/reconcile-log.js';
import { LazyChildLogger } from '../logging/lazy-child-logger.js';
import type { ControllerEvents } from './controller-events.js';
import type { ControllerObservability, ReconcileRecord, ReconcileSkipReason } from './controller-observability.js';
import { namespaceAndName, reconcileBindings, ReconcileTrace } from './reconcile-trace.js';
import type { PrimaryVisibility } from './primary-visibility.js';
import type { PrimaryLedger } from './primary-ledger.js';
import type { PrimaryWriter } from './primary-writer.js';
import { InFlightReconciles } from './in-flight-reconciles.js';
import { OpenedContexts } from './opened-contexts.js';
import type { ControllerInternals } from './controller-internals.js';

/** What a {@link ReconciliationDispatcher} works with: the controller's parts it calls. */
export interface ReconciliationDispatcherOptions<P extends KubernetesObject> {
  readonly name: string;
  readonly kind: ResourceKind<P>;
  readonly reconciler: Reconciler<P, KubeClient>;
  readonly client: KubeClient;
  readonly writer: PrimaryWriter<P>;
  readonly workflow: Workflow<P> | undefined;
  readonly finalizer: string | undefined;
  readonly ledger: PrimaryLedger<P>;
  /** Which primaries a reconcile may reach (stealth), shared with the primary source. */
  readonly visibility: PrimaryVisibility<P>;
  readonly primaryCache: InformerCache<P>;
  /** The controller's event sources, for each reconcile's context (known once started). */
  readonly sources: () => readonly EventSource<unknown, P>[];
  readonly logger: Logger;
  readonly eventBroadcaster: ControllerObservability['events'];
  /** Where `reconciled` events go (built only while someone listens). */
  readonly events: ControllerEvents;
  /** Aborts the signal of a running reconcile (the event processor's `abortInFlight`). */
  readonly abortInFlight: (key: string, reason: unknown) => void;
  /** Keep each primary's last reconcile for `describePrimary` (the controller's `inspection`). */
  readonly inspection: boolean;
  /**
   * Whether the event processor keeps causes (inspection on, or debug lines written): the
   * failed-reconcile line lists them then, and gives their count only otherwise.
   */
  readonly causesKept: boolean;
}

/**
 * Runs one reconcile of one primary (JOSDK's ReconciliationDispatcher): reads the primary (or its
 * tombstone), checks fencing and stealth, adds the finalizer before the first `reconcile` when
 * the reconciler cleans up, runs `cleanup` for a primary marked for deletion and removes the
 * finalizer when told to, runs the managed workflow, writes the returned control, and after
 * exhausted retries calls `updateErrorStatus`. Each reconcile gets an id (made when a line is
 * written) and a log line naming its causes (built only when debug lines are written). With
 * `inspection` on it also leaves a record for `describePrimary` ({@link ReconcileTrace}: id,
 * ISO start time and copy made only when read); with it off nothing of a reconcile outlives it.
 */
export class ReconciliationDispatcher<P extends KubernetesObject> implements ControllerInternals<P> {
  readonly #o: ReconciliationDispatcherOptions<P>;
  #dispatchGuard: ((primary: P) => boolean) | undefined;
  #primaryFence: ((primary: P) => void) | undefined;
  /** The reconciles running now: what a shard release waits for and a lost shard aborts. */
  readonly #inFlight = new InFlightReconciles<P>();
  /**
   * The last reconcile of each primary (dropped with the primary), for `describePrimary`; only
   * while inspection is on: a record per primary held for a second or more outlives the young
   * generation, and promoting it is most of what inspection costs per event.
   */
  readonly #lastReconciles = new Map<string, ReconcileTrace>();
  #unfenced: { readonly client: KubeClient; readonly writer: PrimaryWriter<P> } | undefined;
  readonly #snapshot = () => this.#o.primaryCache.snapshot(); // one function for every context
  /** One function for every context: the context hands it its primary. */
  readonly #recorderFor: ((primary: P) => EventRecorder) | undefined;
  #contextOptions: { -readonly [O in keyof DefaultContextOptions<P, KubeClient>]: DefaultContextOptions<P, KubeClient>[O] } | undefined;

  constructor(options: ReconciliationDispatcherOptions<P>) {
    this.#o = options;
    const broadcaster = options.eventBroadcaster;
    this.#recorderFor = broadcaster ? (primary) => broadcaster.recorderFor(options.name, options.kind, primary) : undefined;
  }

  /** The last reconcile of a primary, if it ran and the primary is still known. */
  lastReconcile(key: string): ReconcileRecord | undefined {
    return this.#lastReconciles.get(key)?.record();
  }

  /** Forgets a primary's last reconcile (the event processor dropped the primary). */
  forget(key: string): void {
    this.#lastReconciles.delete(key);
  }

  /** See `ControllerInternals.setDispatchGuard`. */
  setDispatchGuard(guard: ((primary: P) => boolean) | undefined): void {
    this.#dispatchGuard = guard;
  }

  /** See `ControllerInternals.setPrimaryFence`. */
  setPrimaryFence(fence: ((primary: P) => void) | undefined): void {
    this.#primaryFence = fence;
  }

  /** Aborts the signals of the running reconciles of primaries matching `belongs`; returns their keys. */
  abortReconciles(belongs: (primary: P) => boolean, reason: unknown): string[] {
    return this.#inFlight.abortMatching(belongs, reason, (key) => this.#o.abortInFlight(key, reason));
  }

  /** Resolves once no reconcile of a primary matching `belongs` is running (told as each ends, no timer). */
  whenIdle(belongs: (primary: P) => boolean): Promise<void> {
    return this.#inFlight.whenIdle(belongs);
  }

  /**
   * The client (handed to the reconcile: its own writes, dependents') and primary writer of the
   * work on one primary. Under sharding both are fenced by the primary's shard, checked as each
   * request is sent: a timer announcing the loss (lost$) can come too late, e.g. when the
   * process resumes from a pause. A reconcile aborted because its shard was
   * lost writes nothing more, even should the shard come back; a shard handed over for a
   * rebalance drains with its writes, since its lease is released only after.
   */
  #writesFor(key: string, primary: P): { readonly client: KubeClient; readonly writer: PrimaryWriter<P> } {
    const fence = this.#primaryFence;
    // Unfenced (no sharding), every reconcile writes through the same pair: made once.
    if (fence === undefined) return (this.#unfenced ??= { client: this.#o.client, writer: this.#o.writer });
    const client = this.#o.client.withFence(() => {
      const lost = this.#inFlight.lostReason(key);
      if (lost !== undefined) throw lost.reason;
      fence(primary);
    });
    return { client, writer: this.#o.writer.withClient(client) };
  }

  #context(
    opened: OpenedContexts<P, KubeClient>,
    client: KubeClient,
    primary: P,
    retryInfo: RetryInfo | undefined,
    signal: { readonly signal: AbortSignal } | undefined,
    primaryFinalStateUnknown = false,
    logger?: Logger,
  ): DefaultContext<P, KubeClient> {
    // One options object, refilled for each context (a context copies what it reads when made).
    const options = (this.#contextOptions ??= {
      primary,
      eventSources: [],
      // Made when the reconciler first reads them: most never do (see DefaultContextOptions).
      primaryCache: this.#snapshot,
      client,
      retryInfo,
      primaryFinalStateUnknown,
      logger,
      eventRecorder: this.#recorderFor,
      signal,
    });
    options.primary = primary;
    options.eventSources = this.#o.sources();
    options.client = client;
    options.retryInfo = retryInfo;
    options.primaryFinalStateUnknown = primaryFinalStateUnknown;
    options.logger = logger ?? this.#o.logger.child(namespaceAndName(ResourceID.keyOfResource(primary)));
    // The request itself: its signal is made only if the reconciler asks for it.
    options.signal = signal;
    const context = new DefaultContext<P, KubeClient>(options);
    // Released when the dispatch that opened it ends (see dispatch), so the caches stop keeping
    // old versions for it.
    return opened.add(context);
  }

  /**
   * One reconcile with its id, its log line and, with inspection on, its record for
   * `describePrimary`. The reconciler's own lines share the id through `context.getLogger()`.
   * A reconcile that finishes synchronously (a reconciler returning its control, nothing to
   * write) returns its result directly: no promise and no microtask hop.
   */
  dispatch(key: string, request: DispatchRequest): DispatchResult | void | Promise<DispatchResult | void> {
    // A bounded primary cache: a primary that left memory is read from the API server first
    // (once; the cache keeps it again), then reconciled as any other.
    if (this.#o.ledger.evicted(key)) return this.#o.ledger.load(key).then(() => this.#dispatchCached(key, request));
    return this.#dispatchCached(key, request);
  }

  #dispatchCached(key: string, request: DispatchRequest): DispatchResult | void | Promise<DispatchResult | void> {
    // A trigger for a primary the cache does not hold (created and deleted quickly, or a
    // secondary naming a primary that does not exist) runs no reconciler: say so. Records are
    // kept only of primaries that exist, so triggers naming missing ones leave nothing behind.
    const found = this.#o.ledger.get(key);
    const present = found !== undefined || this.#o.ledger.tombstone(key) !== undefined;
    let trace: ReconcileTrace | undefined;
    if (this.#o.inspection) {
      trace = new ReconcileTrace(key, request.causes);
      if (present) this.#lastReconciles.set(key, trace);
      else this.#lastReconciles.delete(key);
    }
    // The processor's start time (its clock is Date.now() in a controller): one clock read less a reconcile.
    const started = trace?.started ?? request.startedAt ?? Date.now();
    const log = new LazyChildLogger(this.#o.logger, trace !== undefined ? () => trace.logBindings() : () => reconcileBindings(key));
    let result: DispatchResult | void | Promise<DispatchResult | void>;
    try {
      // Fencing: a replica that may not write (lost its lease) must not reconcile either.
      this.#o.client.checkFence();
      const subject = found ?? this.#o.ledger.tombstone(key)?.primary;
      // Per-primary fencing (sharding): a primary of a shard this replica does not own right now
      // is its owner's to reconcile; checked at the last moment, synchronously.
      result =
        subject === undefined
          ? skip('not-cached')
          : this.#dispatchGuard !== undefined && !this.#dispatchGuard(subject)
            ? skip('not-owned')
            : this.#owned(key, subject, request, log, found);
    } catch (error) {
      return this.#failed(started, trace, log, request, error);
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => this.#succeeded(started, trace, log, request, present, value),
        (error: unknown) => this.#failed(started, trace, log, request, error),
      );
    }
    return this.#succeeded(started, trace, log, request, present, result);
  }

  /** The end of a reconcile that succeeded: its duration, and its line when debug lines are written. */
  #succeeded(
    started: number,
    trace: ReconcileTrace | undefined,
    log: LazyChildLogger,
    request: DispatchRequest,
    present: boolean,
    result: DispatchResult | void,
  ): DispatchResult | void {
    // The clock is read only for a record or a line that shows the duration (about 40 ns a read).
    const recorded = trace?.succeeded();
    if (log.isLevelEnabled('debug')) {
      const durationMs = recorded ?? Date.now() - started;
      const rescheduled = result?.rescheduleAfterMs !== undefined ? { rescheduleAfterMs: result.rescheduleAfterMs } : {};
      log.debug(
        { ...reconcileLogFields(request, this.#o.causesKept), durationMs, ...rescheduled },
        !present
          ? 'primary not in cache, nothing to reconcile'
          : result?.skipped
            ? `nothing to reconcile (${result.skipped})`
            : 'reconciled',
      );
    }
    return result;
  }

  /** The end of a reconcile that failed: its duration and error line; rethrows `error`. */
  #failed(started: number, trace: ReconcileTrace | undefined, log: LazyChildLogger, request: DispatchRequest, error: unknown): never {
    const durationMs = trace !== undefined ? trace.failed(error) : Date.now() - started;
    log.error({ ...reconcileLogFields(request, this.#o.causesKept), durationMs, err: error }, 'reconcile failed');
    throw error;
  }

  /**
   * A managed workflow's cleanup, then the reconciler's: the finalizer comes off only when every
   * dependent the workflow deletes is gone and the reconciler (if it cleans up) agrees.
   */
  async #cleanup(primary: P, context: DefaultContext<P, KubeClient>): Promise<DeleteControl> {
    const workflow = this.#o.workflow;
    if (workflow !== undefined) {
      const result = await workflow.cleanup(primary, context);
      result.throwIfFailed();
      // Not gone yet: the dependents' own delete events bring the primary back here.
      if (!result.allReady) return DeleteControl.noFinalizerRemoval();
    }
    const reconciler = this.#o.reconciler;
    return reconciler.cleanup ? reconciler.cleanup(primary, context) : DeleteControl.defaultDelete();
  }

  /**
   * The work on an owned primary: `found` is the ledger's view of the key, read once by
   * `dispatch`, `subject` it or its tombstone's. The bookkeeping around the reconcile is here,
   * not in a wrapper. Synchronous (no promise) when the reconciler returns its control and there
   * is nothing to write: the common case needs no async frame.
   */
  #owned(
    key: string,
    subject: P,
    request: DispatchRequest,
    log: Logger,
    found: P | undefined,
  ): DispatchResult | void | Promise<DispatchResult | void> {
    this.#inFlight.started(key, subject);
    const opened = new OpenedContexts<P, KubeClient>();
    let result: DispatchResult | void | Promise<DispatchResult | void>;
    try {
      result = this.#work(key, subject, request, log, found, opened);
    } catch (error) {
      this.#ended(key, opened);
      throw error;
    }
    if (!(result instanceof Promise)) {
      this.#ended(key, opened);
      return result;
    }
    return result.then(
      (value) => (this.#ended(key, opened), value),
      (error: unknown) => {
        this.#ended(key, opened);
        throw error;
      },
    );
  }

  /** After the work on a primary, however it ended. */
  #ended(key: string, opened: OpenedContexts<P, KubeClient>): void {
    this.#inFlight.ended(key);
    opened.releaseAll();
  }

  /**
   * Reconciles a live, visible primary that needs no finalizer work and has no workflow, in this
   * turn when the reconciler answers at once; anything else goes to `#workAsync`.
   */
  #work(
    key: string,
    subject: P,
    request: DispatchRequest,
    log: Logger,
    found: P | undefined,
    opened: OpenedContexts<P, KubeClient>,
  ): DispatchResult | void | Promise<DispatchResult | void> {
    const { client, writer } = this.#writesFor(key, subject);
    const primary = found;
    const finalizer = this.#o.finalizer;
    if (
      primary === undefined ||
      primary.metadata?.deletionTimestamp !== undefined ||
      (finalizer !== undefined && !primary.metadata?.finalizers?.includes(finalizer)) ||
      this.#o.workflow !== undefined
    ) {
      return this.#workAsync(key, request, log, found, opened, client, writer);
    }
    // Stealth: triggers from secondaries, timers or retries never reach an invisible primary.
    if (!this.#o.visibility.visible(primary)) return skip('hidden');
    const context = this.#context(opened, client, primary, request.retryInfo, request, false, log);
    const control = this.#o.reconciler.reconcile(primary, context);
    // An async reconciler (or any thenable) is waited for; a control returned at once is applied now.
    if (isThenable(control)) return Promise.resolve(control).then((c) => this.#applyControl(key, primary, c, client, writer));
    return this.#applyControl(key, primary, control, client, writer);
  }

  /**
   * Writes what a reconcile returned (no write, nothing to wait for: synchronous) and reports it;
   * returns its reschedule.
   */
  #applyControl(
    key: string,
    primary: P,
    control: UpdateControl<P>,
    client: KubeClient,
    writer: PrimaryWriter<P>,
    wrote?: ('status' | 'resource' | 'finalizer')[],
  ): DispatchResult | void | Promise<DispatchResult | void> {
    if (control.resource !== undefined) return this.#writeControl(key, primary, control, client, writer, wrote ?? []);
    // Nothing written (most reconciles): one shared empty list, no array per reconcile.
    this.#o.events.reconciled(key, control.kind, wrote ?? NOTHING_WRITTEN);
    return scheduleOf(control);
  }

  async #writeControl(
    key: string,
    primary: P,
    control: UpdateControl<P>,
    client: KubeClient,
    writer: PrimaryWriter<P>,
    wrote: ('status' | 'resource' | 'finalizer')[],
  ): Promise<DispatchResult | void> {
    const { ledger } = this.#o;
    client.checkFence();
    if (control.resource !== undefined && (control.kind === 'patchResource' || control.kind === 'patchResourceAndStatus')) {
      const written = ledger.remember(await writer.patchResource(primary, control.resource));
      if (written !== undefined) wrote.push('resource');
      primary = written ?? primary;
    }
    if (control.resource !== undefined && (control.kind === 'patchStatus' || control.kind === 'patchResourceAndStatus')) {
      if (ledger.remember(await writer.patchStatus(primary, control.resource)) !== undefined) wrote.push('status');
    }
    this.#o.events.reconciled(key, control.kind, wrote);
    return scheduleOf(control);
  }

  /** The work on a deleted primary, one being deleted, one needing our finalizer, or under a workflow. */
  async #workAsync(
    key: string,
    request: DispatchRequest,
    log: Logger,
    found: P | undefined,
    opened: OpenedContexts<P, KubeClient>,
    client: KubeClient,
    writer: PrimaryWriter<P>,
  ): Promise<DispatchResult | void> {
    const retryInfo = request.retryInfo;
    const signal = request;
    const { ledger, visibility, events } = this.#o;
    let primary = found;
    const wrote: ('status' | 'resource' | 'finalizer')[] = [];
    if (primary === undefined) {
      const tombstone = ledger.tombstone(key);
      if (tombstone === undefined) return skip('not-cached');
      // The primary is gone: nothing to write back, whatever cleanup answers.
      await this.#cleanup(
        tombstone.primary,
        this.#context(opened, client, tombstone.primary, retryInfo, signal, tombstone.stateUnknown, log),
      );
      ledger.cleanedUpAfterDeletion(key);
      events.reconciled(key, 'cleanupAfterDeletion', wrote);
      return;
    }
    const finalizer = this.#o.finalizer;
    // Stealth: triggers from secondaries, timers or retries never reach an invisible primary.
    if (!visibility.visible(primary)) return skip('hidden');
    if (primary.metadata?.deletionTimestamp !== undefined) {
      if (finalizer === undefined || !primary.metadata.finalizers?.includes(finalizer)) return skip('deleting');
      // Cleaned up already (its finalizer is off; the cache has not caught up): exactly once.
      if (ledger.cleanupDone(key, primary.metadata.uid)) return skip('deleting');
      const control = await this.#cleanup(primary, this.#context(opened, client, primary, retryInfo, signal, false, log));
      if (control.removeFinalizer) {
        client.checkFence();
        ledger.finalizerRemoved(key, primary, await writer.removeFinalizer(primary, finalizer), finalizer);
        wrote.push('finalizer');
      }
      events.reconciled(key, control.removeFinalizer ? 'defaultDelete' : 'noFinalizerRemoval', wrote);
      return control.scheduleDelayMs === undefined ? undefined : { rescheduleAfterMs: control.scheduleDelayMs };
    }
    if (finalizer !== undefined && !primary.metadata?.finalizers?.includes(finalizer)) {
      client.checkFence();
      primary = ledger.remember(await writer.addFinalizer(primary, finalizer)) ?? primary;
      wrote.push('finalizer');
    }
    const context = this.#context(opened, client, primary, retryInfo, signal, false, log);
    if (this.#o.workflow !== undefined) (await this.#o.workflow.reconcile(primary, context)).throwIfFailed();
    const control = await this.#o.reconciler.reconcile(primary, context);
    return this.#applyControl(key, primary, control, client, writer, wrote);
  }

  /** Retries ran out: the reconciler's `updateErrorStatus`, if it has one, and its status write. */
  async onRetriesExhausted(key: string, error: unknown, retryInfo: RetryInfo): Promise<void> {
    const updateErrorStatus = this.#o.reconciler.updateErrorStatus?.bind(this.#o.reconciler);
    if (updateErrorStatus === undefined) return;
    const primary = this.#o.ledger.get(key);
    if (primary === undefined) return;
    const opened = new OpenedContexts<P, KubeClient>();
    const { client, writer } = this.#writesFor(key, primary);
    let control: ErrorStatusUpdateControl<P>;
    try {
      control = await updateErrorStatus(primary, this.#context(opened, client, primary, retryInfo, undefined), error);
    } finally {
      opened.releaseAll();
    }
    if (control.resource !== undefined) {
      if (this.#o.ledger.remember(await writer.patchStatus(primary, control.resource)) !== undefined) {
        this.#o.events.reconciled(key, 'updateErrorStatus', ['status']);
      }
    }
  }
}

const NOTHING_WRITTEN: readonly never[] = Object.freeze([]);

/** A dispatch that called no reconciler, and why: metrics count it apart from reconciles. */
function skip(reason: ReconcileSkipReason): DispatchResult {
  return { skipped: reason };
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown }).then === 'function';
}

/** The reschedule a control asks for, if any. */
function scheduleOf(control: UpdateControl<KubernetesObject>): DispatchResult | void {
  if (control.scheduleDelayMs === undefined) return undefined;
  const priority = control.schedulePriority;
  return { rescheduleAfterMs: control.scheduleDelayMs, ...(priority !== undefined ? { reschedulePriority: priority } : {}) };
}
