import type { DomainEvent } from "../../domain/events.js";

/**
 * Group commit shared by every event store: `append` only validates, encodes and queues; batches
 * are handed to a writer (one transaction each) shortly after, one at a time and in append order.
 */

/** A batch is written as soon as this many events are queued (and never holds more, see `takeBatch`). */
export const DEFAULT_BATCH_SIZE = 500;
/**
 * A lone event waits at most this long for company before its batch is written: short enough to
 * be invisible next to a tool call's own latency, long enough to gather a burst into one commit.
 */
export const DEFAULT_BATCH_DELAY_MS = 5;
/**
 * When the last batch was written longer ago than this, an event is written at the end of the
 * turn of the event loop that appended it instead of after the delay: at a low rate there is no
 * burst to gather, and the commit then runs while the gateway waits for its next request (its
 * tool call already answered) rather than landing, 5 ms later, in the middle of another call.
 */
export const DEFAULT_IDLE_COMMIT_AFTER_MS = 2;
/** First wait after a failed batch; doubled on each further failure of the same batch... */
export const RETRY_INITIAL_MS = 50;
/** ...up to this, so a recovered database is noticed within a few seconds. */
export const RETRY_MAX_MS = 5_000;
/**
 * How long `whenCommitted` waits before it gives up (resolves false; the events stay queued). A
 * commit normally takes a few milliseconds; this is long enough to ride out a retried batch or a
 * short database blip (the same order as the readiness grace of `persistence.readiness_grace_s`,
 * 5 s by default, and as SQLite's busy timeout), and short enough that a caller whose answer waits
 * on a database that is away hears so within seconds rather than hanging.
 */
export const DEFAULT_COMMIT_WAIT_MS = 5_000;
/**
 * How long `close()` keeps retrying a failing batch before giving up. A graceful shutdown must end
 * even when the database is gone; the events still queued are then reported in the rejection.
 */
export const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

/** One event as written: the columns of the `events` table apart from position and version. */
export interface EncodedEvent {
  readonly event_id: string;
  readonly event_type: string;
  readonly occurred_at: number;
  readonly produced_by: string;
  /** JSON of the whole DomainEvent (envelope and payload), parsed back on read. */
  readonly payload: string;
}

/** The events of one `append` call; written in the same transaction, never split. */
export interface AppendGroup {
  readonly streamId: string;
  readonly events: readonly EncodedEvent[];
}

/**
 * Writes one batch in one transaction, assigning positions and versions. `attempt` is 1 on the
 * first try; on later tries the batch may already be committed (a commit whose answer was lost),
 * so a writer must then skip events whose `event_id` is already stored.
 */
export type BatchWriter = (batch: readonly AppendGroup[], attempt: number) => Promise<void>;

export interface BatchFailure {
  /** 1 for the first failure of this batch. */
  readonly attempt: number;
  /** Events in the failed batch. */
  readonly events: number;
  /** Events queued and not yet written, the failed batch included. */
  readonly pending: number;
  /** The batch is retried after this long (while the store is open). */
  readonly retryInMs: number;
}

export interface GroupCommitOptions {
  /** Events per batch; default {@link DEFAULT_BATCH_SIZE}. */
  batchSize?: number;
  /** Longest wait before a partial batch is written; default {@link DEFAULT_BATCH_DELAY_MS}. */
  batchDelayMs?: number;
  /**
   * Quiet time after which an event is written at the end of its turn rather than after
   * `batchDelayMs`; default {@link DEFAULT_IDLE_COMMIT_AFTER_MS}. `Infinity` always waits.
   */
  idleCommitAfterMs?: number;
  /** Longest time `close()` waits for the queue to be written; default {@link DEFAULT_CLOSE_TIMEOUT_MS}. */
  closeTimeoutMs?: number;
  /** Longest wait of `whenCommitted`; default {@link DEFAULT_COMMIT_WAIT_MS}. */
  commitWaitMs?: number;
  /** Told about every failed batch attempt (composition logs it); the batch is retried regardless. */
  onError?: (error: unknown, failure: BatchFailure) => void;
}

interface QueuedGroup extends AppendGroup {
  /** Number of this append call, counting from 1. */
  readonly seq: number;
}

interface FlushWaiter {
  readonly target: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** A `whenCommitted` call: no rejection, it resolves false once its deadline passed. */
interface CommitWaiter {
  readonly target: number;
  /** `performance.now()` after which it gives up; waiters are kept in this order. */
  readonly deadline: number;
  readonly resolve: (committed: boolean) => void;
}

const COMMITTED = true as const;

export class BatchingAppender {
  readonly #write: BatchWriter;
  readonly #batchSize: number;
  readonly #batchDelayMs: number;
  readonly #idleCommitAfterMs: number;
  readonly #closeTimeoutMs: number;
  readonly #commitWaitMs: number;
  readonly #onError: (error: unknown, failure: BatchFailure) => void;

  readonly #queue: QueuedGroup[] = [];
  #queuedEvents = 0;
  #appendedSeq = 0;
  #committedSeq = 0;
  #waiters: FlushWaiter[] = [];
  /** In call order, hence in deadline order (one wait length for all). */
  #commitWaiters: CommitWaiter[] = [];
  /** Armed for the oldest commit waiter's deadline, at most one at a time. */
  #expiry: NodeJS.Timeout | undefined;
  /** While a batch is failing: `performance.now()` of its next attempt; undefined while commits succeed. */
  #nextAttemptAt: number | undefined;
  #writing = false;
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  /** `performance.now()` when the last batch was written; none yet counts as long ago. */
  #lastWrittenAt = Number.NEGATIVE_INFINITY;
  #closed = false;
  #closing: Promise<void> | undefined;
  /** Set when `close()` gave up: the queue is abandoned and every later flush rejects with it. */
  #abandoned: Error | undefined;
  #wakeRetry: (() => void) | undefined;

  constructor(write: BatchWriter, options: GroupCommitOptions = {}) {
    this.#write = write;
    this.#batchSize = positiveInteger(options.batchSize ?? DEFAULT_BATCH_SIZE, "batchSize");
    this.#batchDelayMs = nonNegative(options.batchDelayMs ?? DEFAULT_BATCH_DELAY_MS, "batchDelayMs");
    const idle = options.idleCommitAfterMs ?? DEFAULT_IDLE_COMMIT_AFTER_MS;
    // Infinity is allowed here: it turns the end-of-turn write off.
    this.#idleCommitAfterMs =
      idle === Number.POSITIVE_INFINITY ? idle : nonNegative(idle, "idleCommitAfterMs");
    this.#closeTimeoutMs = nonNegative(options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS, "closeTimeoutMs");
    this.#commitWaitMs = nonNegative(options.commitWaitMs ?? DEFAULT_COMMIT_WAIT_MS, "commitWaitMs");
    this.#onError = options.onError ?? (() => undefined);
  }

  /** True once `close()` was called: appends throw from then on. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Events accepted and not yet committed. */
  get pendingEvents(): number {
    return this.#queuedEvents;
  }

  /**
   * Validates and queues the events (synchronously, no I/O). Throws on a closed store and on an
   * event that could never be written (missing envelope field, NUL character, unserializable
   * payload), so that one bad event cannot block the queue behind it forever.
   */
  append(streamId: string, events: readonly DomainEvent[]): void {
    if (this.#closed) throw new Error("event store is closed: append refused");
    if (typeof streamId !== "string" || streamId === "" || streamId.includes("\u0000")) {
      throw new TypeError("event store: stream id must be a non-empty string without NUL characters");
    }
    if (events.length === 0) return;
    const encoded = events.map(encodeEvent);
    this.#queue.push({ streamId, events: encoded, seq: ++this.#appendedSeq });
    this.#queuedEvents += encoded.length;
    this.#schedule();
  }

  /**
   * While a batch is failing (its retry pending or running), how long until its next attempt;
   * null while batches commit. Cleared by the first batch that commits.
   */
  get commitFailure(): { readonly retryInMs: number } | null {
    if (this.#nextAttemptAt === undefined) return null;
    return { retryInMs: Math.max(0, this.#nextAttemptAt - performance.now()) };
  }

  /** Cuts short the backoff of a failing batch: it is attempted again at once. */
  retryNow(): void {
    this.#wakeRetry?.();
  }

  /** A mark of every append so far, for `whenCommitted`. */
  appendMark(): number {
    return this.#appendedSeq;
  }

  /**
   * `true` at once when every append up to `mark` is committed; else a promise of `true` once it
   * is, or of `false` once `commitWaitMs` passed first (the events stay queued, nothing is
   * dropped). Unlike `flush` it starts no write of its own: the batch is written at the end of the
   * current event-loop turn, or right after the write in progress, so that every caller waiting
   * meanwhile shares that one commit.
   */
  whenCommitted(mark: number): true | Promise<boolean> {
    if (this.#committedSeq >= mark) return COMMITTED;
    if (this.#abandoned) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      this.#commitWaiters.push({ target: mark, deadline: performance.now() + this.#commitWaitMs, resolve });
      this.#armExpiry();
      this.#schedule();
    });
  }

  /** Resolves once every event appended before the call is committed; starts writing at once. */
  flush(): Promise<void> {
    const target = this.#appendedSeq;
    if (this.#committedSeq >= target) return Promise.resolve();
    if (this.#abandoned) return Promise.reject(this.#abandoned);
    return new Promise<void>((resolve, reject) => {
      this.#waiters.push({ target, resolve, reject });
      this.#schedule();
    });
  }

  /**
   * Refuses further appends and writes everything queued. Rejects, after `closeTimeoutMs` of
   * failed attempts, with an error giving the number of events that were not written.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.#closeTimeoutMs);
    });
    const outcome = await Promise.race([this.flush().then(() => "flushed" as const), gaveUp]).finally(() =>
      clearTimeout(timer),
    );
    if (outcome === "flushed") return;
    const error = new Error(
      `event store closed with ${this.#queuedEvents} event(s) not written after ${this.#closeTimeoutMs} ms of failed attempts`,
    );
    this.#abandoned = error;
    this.#clearTimer();
    this.#wakeRetry?.();
    for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
    for (const waiter of this.#commitWaiters.splice(0)) waiter.resolve(false);
    throw error;
  }

  #urgent(): boolean {
    return this.#queuedEvents >= this.#batchSize || this.#waiters.length > 0 || this.#closed;
  }

  #schedule(): void {
    if (this.#writing || this.#queue.length === 0 || this.#abandoned) return;
    if (this.#urgent()) {
      this.#clearTimer();
      void this.#drain();
      return;
    }
    if (this.#immediate) return;
    // Someone waits for a commit: at the end of this turn, with whatever else it queued.
    if (this.#commitWaiters.length > 0 || performance.now() - this.#lastWrittenAt > this.#idleCommitAfterMs) {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#immediate = setImmediate(() => {
        this.#immediate = undefined;
        void this.#drain();
      });
      return;
    }
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#drain();
    }, this.#batchDelayMs);
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#immediate) clearImmediate(this.#immediate);
    this.#timer = undefined;
    this.#immediate = undefined;
  }

  /** The only writer: batches go out one after another, so commit order is append order. */
  async #drain(): Promise<void> {
    if (this.#writing) return;
    this.#writing = true;
    this.#clearTimer();
    try {
      while (this.#queue.length > 0 && !this.#abandoned) {
        const batch = this.#takeBatch();
        if (!(await this.#writeWithRetry(batch))) return;
        this.#lastWrittenAt = performance.now();
        this.#queue.splice(0, batch.length);
        this.#queuedEvents -= countEvents(batch);
        this.#committedSeq = batch[batch.length - 1]!.seq;
        this.#nextAttemptAt = undefined;
        this.#settleWaiters();
        // Appended while that batch was written, by callers who wait: their turn has ended already.
        if (!this.#urgent() && this.#commitWaiters.length === 0) break;
      }
    } finally {
      this.#writing = false;
    }
    this.#schedule();
  }

  /** Whole append groups from the head of the queue, up to the batch size (at least one group). */
  #takeBatch(): QueuedGroup[] {
    const batch: QueuedGroup[] = [];
    let events = 0;
    for (const group of this.#queue) {
      if (batch.length > 0 && events + group.events.length > this.#batchSize) break;
      batch.push(group);
      events += group.events.length;
    }
    return batch;
  }

  async #writeWithRetry(batch: readonly QueuedGroup[]): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#write(batch, attempt);
        return true;
      } catch (error) {
        if (this.#abandoned) return false;
        const retryInMs = Math.min(RETRY_INITIAL_MS * 2 ** (attempt - 1), RETRY_MAX_MS);
        this.#nextAttemptAt = performance.now() + retryInMs;
        try {
          this.#onError(error, {
            attempt,
            events: countEvents(batch),
            pending: this.#queuedEvents,
            retryInMs,
          });
        } catch {
          // A failing logger must not stop the retries.
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, retryInMs);
          this.#wakeRetry = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wakeRetry = undefined;
        if (this.#abandoned) return false;
      }
    }
  }

  #settleWaiters(): void {
    if (this.#waiters.length > 0) {
      const still: FlushWaiter[] = [];
      for (const waiter of this.#waiters) {
        if (waiter.target <= this.#committedSeq) waiter.resolve();
        else still.push(waiter);
      }
      this.#waiters = still;
    }
    if (this.#commitWaiters.length > 0) {
      // Kept in call order (a mark may be older than a later caller's), for the expiry.
      const still: CommitWaiter[] = [];
      for (const waiter of this.#commitWaiters) {
        if (waiter.target <= this.#committedSeq) waiter.resolve(true);
        else still.push(waiter);
      }
      this.#commitWaiters = still;
    }
  }

  /** One timer for every commit waiter: the oldest's deadline comes first (one wait length for all). */
  #armExpiry(): void {
    if (this.#expiry || this.#commitWaiters.length === 0) return;
    const delay = Math.max(0, this.#commitWaiters[0]!.deadline - performance.now());
    this.#expiry = setTimeout(() => {
      this.#expiry = undefined;
      this.#expire();
    }, delay);
    // A waiter's deadline must not keep a process alive that has nothing else to do.
    this.#expiry.unref();
  }

  #expire(): void {
    const now = performance.now();
    let expired = 0;
    while (expired < this.#commitWaiters.length && this.#commitWaiters[expired]!.deadline <= now) expired++;
    for (const waiter of this.#commitWaiters.splice(0, expired)) waiter.resolve(false);
    this.#armExpiry();
  }
}

function encodeEvent(event: DomainEvent): EncodedEvent {
  const { event_id, type, occurred_at, produced_by } = event;
  if (!cleanString(event_id)) throw new TypeError("event store: event_id must be a non-empty string");
  if (!cleanString(type)) throw new TypeError(`event store: event ${event_id} has no type`);
  if (typeof produced_by !== "string" || produced_by.includes("\u0000")) {
    throw new TypeError(`event store: event ${event_id} has no produced_by`);
  }
  if (typeof occurred_at !== "number" || !Number.isFinite(occurred_at)) {
    throw new TypeError(`event store: event ${event_id} has no finite occurred_at`);
  }
  // Serialized now: the queued copy cannot change if the caller mutates the object afterwards.
  return { event_id, event_type: type, occurred_at, produced_by, payload: JSON.stringify(event) };
}

function cleanString(value: unknown): value is string {
  return typeof value === "string" && value !== "" && !value.includes("\u0000");
}

function countEvents(batch: readonly AppendGroup[]): number {
  let n = 0;
  for (const group of batch) n += group.events.length;
  return n;
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`event store: ${name} must be a positive integer`);
  return value;
}

function nonNegative(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`event store: ${name} must be >= 0`);
  return value;
}
