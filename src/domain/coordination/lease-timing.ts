/**
 * Timing of the management lease (spec 2 §2 `coordination`), in seconds. The holder renews every
 * `renewIntervalS`, steps down when it has not confirmed the lease for `renewDeadlineS` (its own
 * monotonic clock), and the row expires `leaseTtlS` after the last write by the store's clock.
 */
export interface LeaseTiming {
  readonly leaseTtlS: number;
  readonly renewIntervalS: number;
  readonly renewDeadlineS: number;
}

/**
 * client-go's leader-election jitter factor: a renew tick may come up to 1.2 intervals after the
 * previous one, and the deadline must still leave room for a renewal after such a late tick.
 */
export const RENEW_JITTER_FACTOR = 1.2;

/** The rules a timing must meet, as messages naming the field; empty when it is sound. */
export function leaseTimingProblems(timing: LeaseTiming): string[] {
  const problems: string[] = [];
  const { leaseTtlS, renewIntervalS, renewDeadlineS } = timing;
  if (!(leaseTtlS > 0 && renewIntervalS > 0 && renewDeadlineS > 0))
    problems.push("lease_ttl_s, renew_interval_s and renew_deadline_s must be above 0");
  if (renewDeadlineS >= leaseTtlS)
    problems.push(`renew_deadline_s (${renewDeadlineS}) must be less than lease_ttl_s (${leaseTtlS})`);
  if (renewIntervalS * RENEW_JITTER_FACTOR >= renewDeadlineS)
    problems.push(
      `renew_interval_s (${renewIntervalS}) x ${RENEW_JITTER_FACTOR} must stay under renew_deadline_s (${renewDeadlineS})`,
    );
  return problems;
}

/**
 * Whether a term confirmed by a store write that began at monotonic `confirmedAtMs` may still be
 * acted on at `nowMs`. The write began before the store stamped the expiry, so the row lives at
 * least `leaseTtlS` past `confirmedAtMs`; stepping down at the deadline leaves the difference as
 * the margin for clock-rate drift and a paused process.
 */
export function termStillHeld(confirmedAtMs: number, nowMs: number, timing: LeaseTiming): boolean {
  return nowMs - confirmedAtMs < timing.renewDeadlineS * 1000;
}
