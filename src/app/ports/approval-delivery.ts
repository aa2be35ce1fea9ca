import type { ApprovalRecord } from "./approval-repository.js";

/** One approval request to bring to the approvers of a channel. */
export interface ApprovalNotice {
  /** The approval as stored: its arguments are already redacted. */
  readonly approval: ApprovalRecord;
  /** The channel it routes on (its policy's `approval_channel`, or `approvals.channel`). */
  readonly channel: string;
}

/** The outcome of one delivery attempt. */
export type DeliveryOutcome =
  | { readonly ok: true }
  /** `permanent`: retrying cannot help (the endpoint refused the request itself). */
  | { readonly ok: false; readonly permanent: boolean; readonly reason: string };

/** Sends a notice to one kind of channel (a webhook, a chat tool). One attempt per call. */
export interface ChannelSender {
  readonly channel: string;
  send(notice: ApprovalNotice): Promise<DeliveryOutcome>;
}

/**
 * Durable delivery of approval requests to the channels that need an adapter (`webhook`, `slack`).
 *
 * Guaranteed: once `enqueue` resolved, the notice is kept outside this process and attempted, with
 * retries and backoff, by some replica until it is delivered or given up; a notice given up after
 * its last attempt is reported once to `onGivenUp` of the replica that made that attempt. Not
 * guaranteed: delivery before the approval's deadline, or delivery exactly once (a receiver may
 * see a notice twice and must key on `approval_id`).
 */
export interface ApprovalDelivery {
  /** Whether this delivery has an adapter for `channel`. */
  serves(channel: string): boolean;
  /** Rejects when the notice could not be queued (the queue is unreachable). */
  enqueue(notice: ApprovalNotice): Promise<void>;
  /** Stops taking work; waits for attempts in flight. */
  close(): Promise<void>;
}
