/**
 * The limits of spec 3 "Discovery configuration": `max_registrations_per_minute` and
 * `max_servers_per_source`, both per source. Time is passed in (epoch milliseconds).
 */

/** The rate window: registrations are counted over the last minute, sliding. */
export const RATE_WINDOW_MS = 60_000;

export interface RateDecision {
  readonly admitted: boolean;
  /** The registration times still inside the window, with `nowMs` added when admitted. */
  readonly history: readonly number[];
}

/**
 * Admits one more registration when fewer than `perMinute` happened in the last minute. A refused
 * attempt is not recorded, so a source held back by the rate frees up as its window slides.
 */
export function admitRegistration(
  history: readonly number[],
  nowMs: number,
  perMinute: number,
): RateDecision {
  const recent = history.filter((at) => nowMs - at < RATE_WINDOW_MS);
  if (recent.length >= perMinute) return { admitted: false, history: recent };
  return { admitted: true, history: [...recent, nowMs] };
}

/** True when a source holding `registeredCount` servers may register one more. */
export function withinSourceCap(registeredCount: number, cap: number): boolean {
  return registeredCount < cap;
}
