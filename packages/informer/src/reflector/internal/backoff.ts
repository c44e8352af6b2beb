import type { BackoffOptions } from '../backoff-options.js';

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
