import { Map as IMap } from 'immutable';
import type { Observable } from 'rxjs';
import { systemClock, type Clock, type TimerHandle } from '../../queue/clock.js';
import type { KubernetesObject } from '../../resource/kubernetes-object.js';
import { ResourceID } from '../../resource/resource-id.js';
import type { EventSource, EventSourceHealth, SecondaryResourceReader } from '../event-source.js';
import type { SecondaryType } from '../secondary-type.js';
import type { Trigger } from '../trigger.js';
import { SourceChannels } from './source-lifecycle.js';
import Type from 'typebox';
import type { OptionSchemas } from '../../options/define-options.js';

/** Fetched resources by primary key. Persistent, so a snapshot is one reference. */
export type PolledTable<R> = IMap<string, readonly R[]>;

/** The options both polling sources take. */
export interface PollingLoopOptions<R> {
  /** Name of the source. Defaults to `resourceType.name`. */
  readonly name?: string;
  /** The type of the resources it serves. */
  readonly resourceType: SecondaryType<R>;
  /** Wait between the end of one poll and the start of the next, in ms. */
  readonly periodMs: number;
  /** Whether two fetched resources are the same. Defaults to comparing their JSON. */
  readonly equals?: (a: R, b: R) => boolean;
  /** Time source. Defaults to {@link systemClock}. */
  readonly clock?: Clock;
}

/** The schemas of {@link PollingLoopOptions}' keys, which both polling sources' options include. */
export const POLLING_LOOP_OPTION_SCHEMAS = {
  name: Type.Optional(Type.String({ description: 'a string' })),
  // A secondaryType(...) token or a ResourceKind: only its name is read, its other keys are its own.
  resourceType: Type.Object(
    { name: Type.String() },
    { additionalProperties: true, description: 'a secondaryType(...) token or a resource kind' },
  ),
  periodMs: Type.Number({ exclusiveMinimum: 0, description: 'a positive number of milliseconds' }),
  equals: Type.Optional(Type.Unknown()),
  clock: Type.Optional(Type.Unknown()),
} as const satisfies OptionSchemas<PollingLoopOptions<unknown>>;

/**
 * Runs `round` every period (never two at once: the next round is armed when one ends), keeps
 * the fetched resources by primary key, and triggers primaries whose resources changed.
 */
export abstract class PollingLoop<R, P extends KubernetesObject> implements EventSource<R, P> {
  readonly name: string;
  readonly resourceType: SecondaryType<R>;
  readonly triggers$: Observable<Trigger>;
  readonly health$: Observable<EventSourceHealth>;
  protected readonly channels: SourceChannels;
  readonly #periodMs: number;
  readonly #clock: Clock;
  readonly #equals: (a: R, b: R) => boolean;
  #table: PolledTable<R> = IMap();
  #timer: TimerHandle | undefined;
  // Bumped by stop() so a round in flight when stopping neither writes nor re-arms.
  #generation = 0;
  #running = false;

  constructor(options: PollingLoopOptions<R>) {
    this.name = options.name ?? options.resourceType.name;
    this.resourceType = options.resourceType;
    this.#periodMs = options.periodMs;
    this.#clock = options.clock ?? systemClock;
    this.#equals = options.equals ?? jsonEquals;
    this.channels = new SourceChannels(this.name);
    this.triggers$ = this.channels.triggers$;
    this.health$ = this.channels.health$;
  }

  /** One poll. `initial` is true for the round `start()` waits for, which triggers nothing. */
  protected abstract round(initial: boolean, isCurrent: () => boolean): Promise<void>;

  /** Calls `listener` with every trigger (how the event processor connects: a direct call, no rxjs hop); returns its remover. */
  onTrigger(listener: (trigger: Trigger) => void): () => void {
    return this.channels.onTrigger(listener);
  }

  /**
   * Runs the first round, then resolves (even if it failed: the failure is on `health$` and
   * the next period retries, so an external system that is down does not stop the operator).
   */
  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    const generation = this.#generation;
    await this.#runRound(true, generation);
  }

  /** Stops polling; a round in flight finishes but its result is dropped, so no trigger follows a stop. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#generation++;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.channels.setHealth('stopped');
  }

  getSecondaryResources(primary: P): readonly R[] {
    return this.#table.get(ResourceID.keyOfResource(primary)) ?? [];
  }

  snapshot(): SecondaryResourceReader<R, P> {
    const table = this.#table;
    return { getSecondaryResources: (primary) => table.get(ResourceID.keyOfResource(primary)) ?? [] };
  }

  /** Keys of the primaries with cached resources. */
  cachedKeys(): string[] {
    return [...this.#table.keys()];
  }

  /** Stores the fetched resources of one primary; triggers it if they changed. */
  protected store(primaryKey: string, resources: readonly R[], trigger: boolean): void {
    const old = this.#table.get(primaryKey);
    const frozen = Object.freeze([...resources]);
    if (old !== undefined && this.#sameList(old, frozen)) return;
    this.#table = this.#table.set(primaryKey, frozen);
    if (trigger && (old !== undefined || frozen.length > 0)) {
      this.#emit(primaryKey, old === undefined ? 'added' : 'updated');
    }
  }

  /** Forgets one primary's resources; triggers it if it had any. */
  protected evict(primaryKey: string, trigger: boolean): void {
    const old = this.#table.get(primaryKey);
    if (old === undefined) return;
    this.#table = this.#table.delete(primaryKey);
    if (trigger && old.length > 0) this.#emit(primaryKey, 'deleted');
  }

  #emit(primaryKey: string, change: 'added' | 'updated' | 'deleted'): void {
    this.channels.emit({ primaryIds: [ResourceID.parse(primaryKey)], source: this.name, cause: { type: 'poll', change } });
  }

  #sameList(a: readonly R[], b: readonly R[]): boolean {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!this.#equals(a[i] as R, b[i] as R)) return false;
    return true;
  }

  async #runRound(initial: boolean, generation: number): Promise<void> {
    const isCurrent = (): boolean => this.#generation === generation;
    try {
      await this.round(initial, isCurrent);
      if (isCurrent()) this.channels.setHealth('healthy');
    } catch (error) {
      if (isCurrent()) this.channels.setHealth('unhealthy', error);
    }
    if (!isCurrent()) return;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      void this.#runRound(false, generation);
    }, this.#periodMs);
  }
}

/** Structural equality through JSON: fine for plain JSON resources, key order matters. */
export function jsonEquals(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
