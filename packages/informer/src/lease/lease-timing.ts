import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';

/**
 * How long a lease lasts, how long its holder keeps it without renewing, and how often it tries:
 * the three durations of client-go's leader election, shared by leader election and sharding.
 *
 * Safety rests on their order: a holder stops acting as one `renewDeadlineMs` after its last
 * renewal was sent, while nobody else takes the lease before `leaseDurationMs` has passed since
 * it saw that renewal; so `leaseDurationMs` must exceed `renewDeadlineMs`, which must leave room
 * for more than one attempt every `retryPeriodMs`.
 *
 * @example
 * ```ts
 * import type { LeaseTiming } from '@kindex/informer';
 *
 * // Take over a dead holder's lease within about 6 s, at the price of a write a second per lease.
 * const timing: LeaseTiming = { leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 1_000 };
 * ```
 */
export interface LeaseTiming {
  /**
   * How long others wait after the last renewal they saw before taking the lease over; the Lease
   * stores it in whole seconds. Defaults to 15000.
   */
  readonly leaseDurationMs?: number;
  /** How long a holder keeps acting as one without a successful renewal. Defaults to 10000. */
  readonly renewDeadlineMs?: number;
  /** Time between attempts to acquire or renew. Defaults to 2000. */
  readonly retryPeriodMs?: number;
}

/**
 * {@link LeaseTiming}'s keys. Their values are checked together by {@link resolveLeaseTiming},
 * which knows how they bound each other.
 */
export const LEASE_TIMING_OPTIONS = defineOptions<LeaseTiming>('lease timing', {
  leaseDurationMs: Type.Optional(Type.Unknown()),
  renewDeadlineMs: Type.Optional(Type.Unknown()),
  retryPeriodMs: Type.Optional(Type.Unknown()),
});

/** @internal How the owner of a timing checks it and names what is wrong. */
export interface LeaseTimingRules {
  /** Who holds the lease, in messages: `a leader`, `an owner`. */
  readonly holder: string;
  /**
   * How many retry periods the renew deadline must exceed: client-go's jitter factor (1.2) for
   * leader election, whose attempts are jittered; 1 for rounds that run every retry period.
   */
  readonly retryPeriodsPerDeadline: number;
  /** Why the renew deadline must exceed them, in messages. */
  readonly renewDeadlineReason: string;
  /** The error for a field out of range, naming the field, its value and the fix. */
  readonly configError: (field: string, value: unknown, fix: string) => Error;
}

/** @internal `timing` with its defaults, checked: throws `rules.configError` for the first value out of range. */
export function resolveLeaseTiming(timing: LeaseTiming, rules: LeaseTimingRules): Required<LeaseTiming> {
  const resolved = {
    leaseDurationMs: timing.leaseDurationMs ?? 15_000,
    renewDeadlineMs: timing.renewDeadlineMs ?? 10_000,
    retryPeriodMs: timing.retryPeriodMs ?? 2_000,
  };
  const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = resolved;
  for (const field of ['leaseDurationMs', 'renewDeadlineMs', 'retryPeriodMs'] as const) {
    if (!Number.isFinite(resolved[field]) || resolved[field] <= 0)
      throw rules.configError(field, resolved[field], 'must be a positive number of milliseconds');
  }
  if (leaseDurationMs < 1000) {
    throw rules.configError('leaseDurationMs', leaseDurationMs, 'must be at least 1000 (the Lease stores whole seconds)');
  }
  if (leaseDurationMs <= renewDeadlineMs) {
    throw rules.configError(
      'leaseDurationMs',
      leaseDurationMs,
      `must exceed renewDeadlineMs (${renewDeadlineMs}) so ${rules.holder} stands down before anyone may take over`,
    );
  }
  const factor = rules.retryPeriodsPerDeadline;
  if (renewDeadlineMs <= factor * retryPeriodMs) {
    throw rules.configError(
      'renewDeadlineMs',
      renewDeadlineMs,
      `must exceed ${factor === 1 ? '' : `${factor} × `}retryPeriodMs (${retryPeriodMs}) ${rules.renewDeadlineReason}`,
    );
  }
  return resolved;
}
