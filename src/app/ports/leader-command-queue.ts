import type { McpShape } from "../../domain/errors.js";

/**
 * Commands that only the fleet manager runs, handed from the replica that received them to the
 * replica holding the management lease, through the database both share.
 */

/** Who asked, as the receiving replica authorized it (the leader does not authorize again). */
export interface ForwardedCaller {
  readonly principal: { id: string; type: string; tenant_id: string | null; roles: readonly string[] };
  readonly authenticated: boolean;
  readonly channel: string;
  readonly confinedTo?: string;
  readonly clientAddress?: string;
  readonly sessionId?: string;
}

export interface LeaderCommand {
  readonly command_id: string;
  /** The operation's name in the catalogue. */
  readonly operation: string;
  /** The validated input. */
  readonly input: unknown;
  readonly caller: ForwardedCaller;
  /** The replica that received it. */
  readonly requested_by: string;
  /** Epoch seconds by the database clock. */
  readonly requested_at: number;
}

/** How a command ended, in a form any replica can turn back into the same answer. */
export type LeaderCommandOutcome =
  | { readonly kind: "ok"; readonly output: unknown }
  | {
      readonly kind: "gateway_error";
      readonly type: string;
      readonly message: string;
      readonly details: Record<string, unknown> | null;
      readonly status: number;
      /** The MCP shape where it differs from the catalogue's (absent from older replicas). */
      readonly mcp?: McpShape | undefined;
      /** The id a lookup did not find (absent from older replicas). */
      readonly subject?: string | undefined;
    }
  | {
      readonly kind: "rejected";
      readonly status: number;
      readonly code: string;
      readonly detail: string;
      readonly extra: Record<string, unknown>;
    }
  | { readonly kind: "internal" };

/** The term a leader claims commands under: the lease row must still name it, unexpired. */
export interface ClaimingTerm {
  readonly lease: string;
  readonly holder: string;
  readonly generation: number;
}

/**
 * Guaranteed: `claim` hands a command only to the current, unexpired holder of the lease named in
 * the term (checked by the database in the same statement), and never to two claimants of the same
 * generation; a command claimed by an older term and not completed is claimed again by the next
 * term (so a command runs at least once, and more than once only across a takeover);
 * `complete` records the outcome only for the term that holds the claim, and only once.
 * Not guaranteed: any ordering between commands of different replicas.
 */
export interface LeaderCommandQueue {
  submit(command: Omit<LeaderCommand, "requested_at">): Promise<void>;
  /** Up to `limit` waiting commands, oldest first, now claimed by `term`. */
  claim(term: ClaimingTerm, limit: number): Promise<LeaderCommand[]>;
  /** Records the outcome; false when the claim moved to a newer term or it was already done. */
  complete(commandId: string, generation: number, outcome: LeaderCommandOutcome): Promise<boolean>;
  /** Takes back a command no leader has claimed yet; true when it was still waiting (now gone). */
  withdraw(commandId: string): Promise<boolean>;
  /** The outcome once completed, undefined while waiting or running. */
  outcome(commandId: string): Promise<LeaderCommandOutcome | undefined>;
  /** Deletes commands requested before `before` (epoch seconds); answers how many. */
  purge(before: number): Promise<number>;
}
