// Kubernetes Events from a reconcile (client-go `tools/events.EventRecorder`, kube-rs
// `events::Recorder`, JOSDK 5.6): the reconciler says what happened to which object; the recorder
// writes it as an `events.k8s.io/v1` Event, so `kubectl describe` and `kubectl events` show it.
//
// Core declares the contract only; @kindex/informer implements it against the API server (series
// aggregation of repeats, rate limiting, a bounded buffer). `noopEventRecorder` drops everything,
// for unit tests and contexts without a cluster.

/**
 * Names the object an Event is about (`core/v1.ObjectReference`). A Kubernetes object can be
 * passed instead: its apiVersion, kind, namespace, name, uid and resourceVersion are taken.
 *
 * @example
 * ```ts
 * import type { EventObjectReference } from '@kindex/core';
 *
 * const deployment: EventObjectReference = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
 * ```
 */
export interface EventObjectReference {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  /** A part of the object (`spec.containers{nginx}`). Defaults to the whole object. */
  readonly fieldPath?: string;
}

/**
 * The type of an Event: `Normal` for what went as planned, `Warning` for what needs attention.
 *
 * @example
 * ```ts
 * import type { EventType } from '@kindex/core';
 *
 * const type: EventType = 'Warning';
 * ```
 */
export type EventType = 'Normal' | 'Warning';

/**
 * One occurrence to record.
 *
 * @example
 * ```ts
 * import type { EventRecord } from '@kindex/core';
 *
 * const record: EventRecord = {
 *   type: 'Warning',
 *   reason: 'DeploymentUnavailable',
 *   action: 'Reconcile',
 *   note: 'Deployment web has 0 of 1 replicas available',
 * };
 * ```
 */
export interface EventRecord {
  /** Normal or Warning. */
  readonly type: EventType;
  /** Why, as one CamelCase word (`DeploymentUnavailable`); at most 128 characters. */
  readonly reason: string;
  /** What the controller did or failed to do (`Reconcile`, `CreateDeployment`); at most 128 characters. */
  readonly action: string;
  /** Human text; longer than 1024 bytes is cut there, as the API server allows no more. Defaults to none. */
  readonly note?: string;
  /** The object the Event is about. Defaults to the primary of the reconcile. */
  readonly regarding?: EventObjectReference;
  /** A second object involved (the Deployment a WebPage waits for). Defaults to none. */
  readonly related?: EventObjectReference;
}

/**
 * Records Kubernetes Events (`context.getEventRecorder()`).
 *
 * Contract:
 * - `record` returns at once and never throws for a failure to write: recording never blocks or
 *   fails a reconcile. Events the API server refuses, or that exceed the rate limit or the
 *   buffer, are dropped and counted (`kindex_events_dropped_total`).
 * - Repeats of one (regarding, action, reason, type, note, related) within six minutes become one
 *   Event whose `series.count` and `series.lastObservedTime` are updated, as client-go does,
 *   rather than a new object per occurrence.
 * - It throws only for a programming error in the record itself (a missing reason or action, a
 *   type other than Normal and Warning), which no retry could fix.
 *
 * @example
 * ```ts
 * import { UpdateControl, type Context, type KubernetesObject } from '@kindex/core';
 *
 * async function reconcile(page: KubernetesObject, context: Context): Promise<UpdateControl> {
 *   context.getEventRecorder().record({ type: 'Normal', reason: 'Reconciled', action: 'Reconcile', note: 'all dependents ready' });
 *   return UpdateControl.noUpdate();
 * }
 * ```
 */
export interface EventRecorder {
  /** Records one occurrence (fire and forget). */
  record(event: EventRecord): void;
}

/**
 * An {@link EventRecorder} that drops every record: the default of a `DefaultContext` built by hand.
 *
 * @example
 * ```ts
 * import { type KubernetesObject, type PrimaryCacheReader } from '@kindex/core';
 * import { DefaultContext, noopEventRecorder } from '@kindex/core/internal';
 * declare const primary: KubernetesObject;
 * declare const primaryCache: PrimaryCacheReader;
 *
 * const context = new DefaultContext({ primary, eventSources: [], primaryCache, client: undefined, eventRecorder: noopEventRecorder });
 * ```
 */
export const noopEventRecorder: EventRecorder = Object.freeze({ record: () => {} });
