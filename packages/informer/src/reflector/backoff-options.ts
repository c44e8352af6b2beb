import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';

// The options and their keys live outside internal/ because config/ checks them where options are
// written; the Backoff that reads them stays private to the reflector.

/**
 * Settings of the reflector's reconnect backoff.
 *
 * @example
 * ```ts
 * import { Kinds, type BackoffOptions, type ControllerOptions } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 *
 * // Retry a failing list/watch sooner, but never more often than every 500 ms.
 * const backoff: BackoffOptions = { initialMs: 500, maxMs: 10_000, factor: 2, jitter: 0.2 };
 * const options: ControllerOptions<KubernetesObject> = { kind: Kinds.ConfigMap, reflector: { backoff } };
 * ```
 */
export interface BackoffOptions {
  /** First delay after a failure, in milliseconds. Defaults to 800. */
  initialMs?: number;
  /** Ceiling of the delay, in milliseconds; jitter never exceeds it. Defaults to 30 000. */
  maxMs?: number;
  /** Growth per consecutive failure. Defaults to 2. */
  factor?: number;
  /**
   * Share of the delay that is random: the delay is drawn from `[d × (1 − jitter/2), d]`.
   * Spreads the reconnects of many clients after an API server outage. Defaults to 1.
   */
  jitter?: number;
  /** Time without failures after which the delay starts again from `initialMs`. Defaults to 120 000. */
  resetAfterMs?: number;
}

/** {@link BackoffOptions}' keys; the Backoff checks their values together (the ceiling bounds the first delay). */
export const BACKOFF_OPTIONS = defineOptions<BackoffOptions>('backoff', {
  initialMs: Type.Optional(Type.Unknown()),
  maxMs: Type.Optional(Type.Unknown()),
  factor: Type.Optional(Type.Unknown()),
  jitter: Type.Optional(Type.Unknown()),
  resetAfterMs: Type.Optional(Type.Unknown()),
});
