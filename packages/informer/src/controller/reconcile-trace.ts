import { randomUUID } from 'node:crypto';
import type { ReconcileCauses } from '@kindex/core';
import type { ReconcileRecord } from './controller-observability.js';

/**
 * One reconcile as its log lines and `describePrimary` see it, made only while the controller's
 * `inspection` is on. Most are never logged nor described: so the id (a UUID) and the ISO start
 * time are made the first time something reads them, and the record is copied out only when
 * asked for. A log line and the record of the same reconcile read the same id.
 */
export class ReconcileTrace {
  readonly #key: string;
  readonly #causes: ReconcileCauses;
  readonly started = Date.now();
  #id: string | undefined;
  #startedAt: string | undefined;
  #outcome: Pick<ReconcileRecord, 'result' | 'durationMs' | 'error'> | undefined;

  constructor(key: string, causes: ReconcileCauses) {
    this.#key = key;
    this.#causes = causes;
  }

  get reconcileID(): string {
    return (this.#id ??= randomUUID());
  }

  /** The bindings of the reconcile's logger (read when its first line is written). */
  logBindings(): Record<string, unknown> {
    return { ...namespaceAndName(this.#key), reconcileID: this.reconcileID };
  }

  /** Marks the reconcile succeeded; returns its duration. */
  succeeded(): number {
    const durationMs = Date.now() - this.started;
    this.#outcome = { result: 'success', durationMs };
    return durationMs;
  }

  /** Marks the reconcile failed with `error`; returns its duration. */
  failed(error: unknown): number {
    const durationMs = Date.now() - this.started;
    this.#outcome = { result: 'error', durationMs, error: error instanceof Error ? error.message : String(error) };
    return durationMs;
  }

  /** A copy as the debug endpoint shows it: a later change of the trace does not change it. */
  record(): ReconcileRecord {
    const startedAt = (this.#startedAt ??= new Date(this.started).toISOString());
    const base = { reconcileID: this.reconcileID, startedAt, causes: this.#causes };
    return this.#outcome === undefined ? base : { ...base, ...this.#outcome };
  }
}

/**
 * The bindings of the logger of a reconcile that leaves no trace (inspection off): a fresh id,
 * made only when its first line is written.
 */
export function reconcileBindings(key: string): Record<string, unknown> {
  return { ...namespaceAndName(key), reconcileID: randomUUID() };
}

/** The `namespace` and `name` log fields of a primary key (`namespace/name` or `name`). */
export function namespaceAndName(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
