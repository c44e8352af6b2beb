import type { KubernetesObject } from '@kindex/core';
import type { Controller, ControllerEvent } from '@kindex/informer';

/**
 * Counts a controller's reconciles per primary key (its `reconciled` events) and records any
 * primary whose attempts overlapped, which the work queue must never allow.
 */
export class ReconcileLog {
  readonly #counts = new Map<string, number>();
  readonly #inFlight = new Set<string>();
  /** Keys that started an attempt while another attempt of the same key was running. */
  readonly overlaps: string[] = [];
  /** Errors of failed attempts, in order (retries of injected faults show up here). */
  readonly failures: { readonly key: string; readonly error: unknown }[] = [];
  /** Keys whose retries ran out, in order. */
  readonly exhausted: string[] = [];
  /** Problems the controller and its sources reported and moved past. */
  readonly problems: unknown[] = [];
  #total = 0;
  #lastActivity = Date.now();
  readonly #subscription: { unsubscribe(): void };

  constructor(controller: Controller<KubernetesObject> | { readonly events$: Controller['events$'] }) {
    this.#subscription = controller.events$.subscribe((e) => this.#on(e));
  }

  /** Reconciles of `key` (`namespace/name`) since the log started or was last reset. */
  count(key: string): number {
    return this.#counts.get(key) ?? 0;
  }

  /** Reconciles of every key since the log started or was last reset. */
  get total(): number {
    return this.#total;
  }

  /** Keys reconciled at least once since the log started or was last reset. */
  keys(): string[] {
    return [...this.#counts.keys()];
  }

  /** Milliseconds since the last trigger, attempt or reconcile. */
  get quietForMs(): number {
    return Date.now() - this.#lastActivity;
  }

  /** Forgets the counts (not the overlaps), to count what follows an action. */
  reset(): void {
    this.#counts.clear();
    this.#total = 0;
  }

  stop(): void {
    this.#subscription.unsubscribe();
  }

  #on(event: ControllerEvent): void {
    this.#lastActivity = Date.now();
    switch (event.type) {
      case 'reconciled':
        this.#counts.set(event.key, this.count(event.key) + 1);
        this.#total++;
        return;
      case 'problem':
        this.problems.push(event.error);
        return;
      case 'processing': {
        const e = event.event;
        if (e.type === 'started') {
          if (this.#inFlight.has(e.key)) this.overlaps.push(e.key);
          this.#inFlight.add(e.key);
        } else if (e.type === 'retries-exhausted') {
          this.exhausted.push(e.key);
        } else if (e.type === 'finished') {
          this.#inFlight.delete(e.key);
          if (e.outcome.type === 'error') this.failures.push({ key: e.key, error: e.outcome.error });
        }
        return;
      }
      default:
        return;
    }
  }
}
