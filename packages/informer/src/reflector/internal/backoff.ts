import type { OptionKeysOf } from '@kindex/core';

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

/** The keys of {@link BackoffOptions}: unknown ones are rejected, not ignored. */
export const BACKOFF_OPTION_KEYS = {
  initialMs: true,
  maxMs: true,
  factor: true,
  jitter: true,
  resetAfterMs: true,
} as const satisfies OptionKeysOf<BackoffOptions>;

/**
 * Jittered exponential backoff in the manner of client-go's reflector: 800 ms doubling to 30 s,
 * back to the start after two minutes without failure. client-go picked these values for a
 * ~98% traffic reduction against an unhealthy API server.
 */
export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly resetAfterMs: number;
  private current = 0;
  private lastFailureAt = Number.NEGATIVE_INFINITY;

  constructor(
    options: BackoffOptions = {},
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = options.maxMs ?? 30_000;
    this.factor = options.factor ?? 2;
    this.jitter = Math.min(Math.max(options.jitter ?? 1, 0), 1);
    this.resetAfterMs = options.resetAfterMs ?? 120_000;
    if (!(this.initialMs >= 0) || !(this.maxMs >= this.initialMs) || !(this.factor >= 1)) {
      throw new RangeError(`invalid backoff: initialMs=${this.initialMs} maxMs=${this.maxMs} factor=${this.factor}`);
    }
  }

  /** Records a failure and returns how long to wait before the next attempt, in milliseconds. */
  next(): number {
    const t = this.now();
    if (this.current === 0 || t - this.lastFailureAt >= this.resetAfterMs) {
      this.current = this.initialMs;
    } else {
      this.current = Math.min(this.current * this.factor, this.maxMs);
    }
    this.lastFailureAt = t;
    return this.current * (1 - (this.jitter / 2) * this.random());
  }
}
