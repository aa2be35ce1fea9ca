/** The one lease of a fleet: every replica sharing the database competes for it. */
export const MANAGEMENT_LEASE = "management";

/**
 * Why a term ended: the replica stopping (`shutdown`), the store refusing a renewal (the row names
 * another holder or generation: `renewal_refused`), or the renew deadline passing without a
 * successful renewal (the store failing or not answering in time: `renew_deadline_passed`).
 */
export type StepDownReason = "shutdown" | "renewal_refused" | "renew_deadline_passed";

/** A change of this replica's standing: `leader` true on election, false on loss or step-down. */
export interface LeadershipChange {
  readonly leader: boolean;
  /** The term's fencing generation: the new term's on election, the ended term's on loss. */
  readonly generation: number;
  /** On loss: why the term ended. */
  readonly reason?: StepDownReason;
}

/**
 * Called on every change. On loss the elector waits for the returned promise before it asks for
 * the lease again (and, on shutdown, before it releases the lease), so leader-only work can stop
 * first. A listener that throws is logged and does not stop the others.
 */
export type LeadershipListener = (change: LeadershipChange) => void | Promise<void>;

/** A term as held now: what a leader-only write carries so the store can fence it. */
export interface LeaseTerm {
  readonly name: string;
  readonly holder: string;
  readonly generation: number;
}

/**
 * This replica's standing in the management lease (spec 2 §2 `coordination`).
 *
 * Guaranteed: `isLeader` is false as soon as the renew deadline has passed on this replica's
 * monotonic clock, even before the loss is announced (a process paused past its deadline answers
 * false the moment it runs again); at most one replica's `isLeader` is true while the lease timings
 * hold (`renew_deadline_s < lease_ttl_s`, clocks advancing at the same rate). Not guaranteed: that
 * a write started while leader lands while still leader; such writes carry `term()`'s generation
 * and the store must check it (fencing).
 */
export interface Leadership {
  /** This replica's id in the lease (`instance_id`). */
  readonly holder: string;
  /** True while this replica holds the lease and is within its renew deadline. */
  readonly isLeader: boolean;
  /** The held term, or undefined when not leader. */
  term(): LeaseTerm | undefined;
  /** Subscribes to changes; returns the unsubscribe function. */
  onChange(listener: LeadershipListener): () => void;
}
