import type { Observable } from 'rxjs';
import { systemClock, type Clock, type TimerHandle } from '../queue/clock.js';
import type { KubernetesObject } from '../resource/kubernetes-object.js';
import { ResourceID } from '../resource/resource-id.js';
import type { EventSource, EventSourceHealth } from './event-source.js';
import { SourceChannels } from './internal/source-lifecycle.js';
import type { Trigger } from './trigger.js';
import Type from 'typebox';
import { defineOptions } from '../options/define-options.js';

/**
 * Options of {@link TimerEventSource}.
 *
 * @example
 * ```ts
 * import { FakeClock, TimerEventSource, type TimerEventSourceOptions } from '@kindex/core';
 *
 * // In a test: a fake clock decides when the timers fire.
 * const options: TimerEventSourceOptions = { name: 'certificate-renewal', clock: new FakeClock() };
 * const timers = new TimerEventSource(options);
 * ```
 */
export interface TimerEventSourceOptions {
  /** Name of the source. Defaults to `'timer'`. */
  readonly name?: string;
  /** Time source. Defaults to {@link systemClock}. */
  readonly clock?: Clock;
}

/** {@link TimerEventSourceOptions}' keys and value checks. */
const TIMER_EVENT_SOURCE_OPTIONS = defineOptions<TimerEventSourceOptions>('TimerEventSource options', {
  name: Type.Optional(Type.String({ description: 'a string' })),
  clock: Type.Optional(Type.Unknown()),
});

/**
 * Reconciles a primary at a chosen time (JOSDK `TimerEventSource`).
 *
 * One schedule per primary: scheduling again replaces the previous one. Schedules made before
 * `start()` are armed by it; `stop()` cancels them all. It serves no secondary resources.
 *
 * Caveats: for "reconcile again in N ms" after a reconcile, return
 * `UpdateControl.rescheduleAfter(ms)` instead; this source is for schedules decided elsewhere
 * (a cron-like field of another resource, an external deadline).
 *
 * @example
 * ```ts
 * import { ResourceID, TimerEventSource } from '@kindex/core';
 * const timers = new TimerEventSource();
 * timers.scheduleOnce(ResourceID.of('job-1', 'team-a'), 60_000);
 * ```
 */
export class TimerEventSource<P extends KubernetesObject = KubernetesObject> implements EventSource<never, P> {
  readonly name: string;
  readonly resourceType = undefined;
  readonly triggers$: Observable<Trigger>;
  readonly health$: Observable<EventSourceHealth>;
  readonly #clock: Clock;
  readonly #channels: SourceChannels;
  readonly #schedules = new Map<string, { readonly id: ResourceID; readonly at: number; timer?: TimerHandle }>();
  #running = false;

  constructor(options: TimerEventSourceOptions = {}) {
    TIMER_EVENT_SOURCE_OPTIONS.check(options);
    this.name = options.name ?? 'timer';
    this.#clock = options.clock ?? systemClock;
    this.#channels = new SourceChannels(this.name);
    this.triggers$ = this.#channels.triggers$;
    this.health$ = this.#channels.health$;
  }

  /** Triggers a reconcile of `primary` after `delayMs` milliseconds. */
  scheduleOnce(primary: ResourceID | P, delayMs: number): void {
    this.scheduleAt(primary, this.#clock.now() + Math.max(0, delayMs));
  }

  /** Triggers a reconcile of `primary` at `timeMs` (epoch milliseconds of the clock). */
  scheduleAt(primary: ResourceID | P, timeMs: number): void {
    const id = primary instanceof ResourceID ? primary : ResourceID.fromResource(primary);
    this.#disarm(id.key);
    const schedule = { id, at: timeMs };
    this.#schedules.set(id.key, schedule);
    if (this.#running) this.#arm(schedule);
  }

  /** Cancels the schedule of `primary`; returns whether there was one. */
  cancel(primary: ResourceID | P | string): boolean {
    const key = typeof primary === 'string' ? primary : primary instanceof ResourceID ? primary.key : ResourceID.keyOfResource(primary);
    this.#disarm(key);
    return this.#schedules.delete(key);
  }

  /** Epoch ms at which `primary` is scheduled, if it is. */
  scheduledAt(primary: ResourceID | string): number | undefined {
    return this.#schedules.get(typeof primary === 'string' ? primary : primary.key)?.at;
  }

  /** Calls `listener` with every trigger (how the event processor connects: a direct call, no rxjs hop); returns its remover. */
  onTrigger(listener: (trigger: Trigger) => void): () => void {
    return this.#channels.onTrigger(listener);
  }

  /** Arms the timers scheduled before start; a timer source is ready at once. */
  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    for (const s of this.#schedules.values()) this.#arm(s);
    this.#channels.setHealth('healthy');
  }

  /** Disarms and forgets every schedule, so a stopped controller gets no late reconcile; schedule again after a restart. */
  async stop(): Promise<void> {
    this.#running = false;
    for (const key of this.#schedules.keys()) this.#disarm(key);
    this.#schedules.clear();
    this.#channels.setHealth('stopped');
  }

  #arm(schedule: { readonly id: ResourceID; readonly at: number; timer?: TimerHandle }): void {
    schedule.timer = this.#clock.setTimeout(() => {
      if (this.#schedules.get(schedule.id.key) !== schedule) return;
      this.#schedules.delete(schedule.id.key);
      this.#channels.emit({ primaryIds: [schedule.id], source: this.name, cause: { type: 'timer' } });
    }, schedule.at - this.#clock.now());
  }

  #disarm(key: string): void {
    const s = this.#schedules.get(key);
    if (s?.timer !== undefined) {
      this.#clock.clearTimeout(s.timer);
      s.timer = undefined;
    }
  }
}
