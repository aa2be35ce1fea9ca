/** A lease as the store sees it now. */
export interface LeaseView {
  readonly name: string;
  readonly holder: string;
  /** Fencing token: increases on every change of term, never reused for a lease name. */
  readonly generation: number;
  /**
   * Seconds until expiry by the store's clock at the time of reading; zero or negative when the
   * lease is expired or released.
   */
  readonly expires_in: number;
}

export type LeaseAttempt =
  | { readonly acquired: true; readonly lease: LeaseView }
  /** `current` is the lease as held by someone else (undefined if it vanished meanwhile). */
  | { readonly acquired: false; readonly current: LeaseView | undefined };

/**
 * The management lease: one row per lease name, judged by the STORE's clock (the database's for
 * SQL backends, so replicas with skewed clocks agree), never the caller's.
 *
 * Guaranteed: `acquire` and `renew` are each one conditional write; `acquire` succeeds when the
 * lease is absent, expired (or released), or held by the same holder and not expired; a new term
 * (any acquire that is not a re-acquire of an unexpired lease by its holder) gets generation
 * previous + 1, the first term generation 1, so two terms never share a generation; `renew` and
 * `release` succeed only for the holder with the current generation while the lease has not expired;
 * `release` expires the lease at once and keeps its generation, so the next term still gets a new
 * one. Not guaranteed: that a holder learns it lost the lease (it must step down by its own
 * monotonic deadline, before the TTL ends); that writes elsewhere are fenced (they must carry the
 * generation and be checked against it).
 */
export interface LeaseStore {
  /** `ttlSeconds` > 0: the lease expires that long after this write. */
  acquire(name: string, holder: string, ttlSeconds: number): Promise<LeaseAttempt>;
  /** The lease after renewal, or undefined when it is no longer held by `holder` in `generation`. */
  renew(name: string, holder: string, generation: number, ttlSeconds: number): Promise<LeaseView | undefined>;
  /** True when released; false when not held by `holder` in `generation` (nothing changes). */
  release(name: string, holder: string, generation: number): Promise<boolean>;
  /** The row as stored, expired or not; undefined when no term ever began. */
  read(name: string): Promise<LeaseView | undefined>;
}
