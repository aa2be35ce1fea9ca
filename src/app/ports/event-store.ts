import type { DomainEvent } from "../../domain/events.js";

/** An event as stored: its global position (commit order) and its version within its stream. */
export interface StoredEvent {
  /** Global position, strictly increasing in commit order, starting at 1; gap-free per store. */
  readonly position: number;
  readonly stream_id: string;
  /** Version within the stream, starting at 1, gap-free. */
  readonly stream_version: number;
  readonly event: DomainEvent;
}

export interface ReadStreamOptions {
  /** First stream version returned (inclusive); default 1. */
  fromVersion?: number;
  /** At most this many events; default 100. */
  limit?: number;
  /** Only events of these types (others are skipped, not counted); an empty list matches nothing. */
  types?: readonly string[];
}

export interface ReadAllOptions {
  /** First global position returned (inclusive); default 1. */
  fromPosition?: number;
  /**
   * Last global position returned (inclusive); default none. With `fromPosition` it bounds what a
   * read examines, which keeps a `types` read of rare events cheap.
   */
  toPosition?: number;
  /** At most this many events; default 100. */
  limit?: number;
  /** Only events of these types (others are skipped, not counted); an empty list matches nothing. */
  types?: readonly string[];
}

/**
 * The append-only event store. `append` is on the tool-call path, so it only queues: events are
 * written in batches (group commit) shortly after, in the order they were appended, and
 * `flush()` resolves once everything appended before it is durable.
 *
 * Guaranteed: no accepted event is lost on a graceful `close()` (it flushes first); a failed batch
 * is retried, never dropped, while the store is open; reads see events in commit order.
 * Not guaranteed: that an event is readable immediately after `append` returns (call `flush()`, or
 * `whenCommitted(appendMark())`, which shares its commit with concurrent callers and is bounded).
 */
export interface EventStore {
  /** True when events survive a restart (sqlite, postgresql); false for memory. */
  readonly durable: boolean;
  /**
   * Queues the events of one stream, in order; they are committed together (same batch). No I/O.
   * Throws when the store is closed, and (TypeError) on an event that could never be stored: no
   * `event_id`, `type` or `produced_by`, a non-finite `occurred_at`, a payload JSON cannot encode.
   * `event_id` is unique in the store: an event whose id is already stored is skipped.
   */
  append(streamId: string, events: readonly DomainEvent[]): void;
  /** Resolves once every event appended before the call is committed (it may wait out retries). */
  flush(): Promise<void>;
  /** A mark of every event appended so far, for `whenCommitted`. A counter read: no I/O. */
  appendMark(): number;
  /**
   * Waits for every event appended up to `mark` to be committed: `true` at once when they already
   * are, else a promise of `true` once they are, or of `false` once the store's commit wait
   * (`commitWaitMs`, 5 s by default) passed first. On `false` nothing is dropped: the events stay
   * queued and are committed once the store can. Unlike `flush` it does not start a write for
   * its caller alone: the batch is written at the end of the current event-loop turn, or right
   * after the write in progress, so that every caller waiting meanwhile shares one commit.
   */
  whenCommitted(mark: number): true | Promise<boolean>;
  /**
   * Null while batches commit. While a batch is failing (waiting for its retry, or retrying), how
   * long until its next attempt: a caller whose answer needs a commit can refuse at once. Cleared
   * by the next batch that commits.
   */
  readonly commitFailure: { readonly retryInMs: number } | null;
  /**
   * The store is known to answer again (its availability probe succeeded): a failing batch is
   * retried now instead of at the end of its backoff, which can be seconds away. No effect while
   * batches commit.
   */
  retryNow(): void;
  readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]>;
  readAll(options?: ReadAllOptions): Promise<StoredEvent[]>;
  /** Flushes, then releases the store. Appends after close are refused (thrown). */
  close(): Promise<void>;
}
