import { type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import { Redis, ReplyError } from "ioredis";
import type { ApprovalDelivery, ApprovalNotice, ChannelSender } from "../../app/ports/approval-delivery.js";
import type { Logger } from "../../app/ports/logger.js";

/** One queue for every channel; the job names the channel. */
const QUEUE_NAME = "approval-delivery";
/** Key prefix: the Redis database may be shared with other applications. */
const PREFIX = "airlock";
/** Connecting and the reachability probe: long enough for a remote Redis, short enough for a boot. */
const CONNECT_TIMEOUT_MS = 5_000;
/** Deliveries attempted at once per replica: each is one HTTP request. */
const CONCURRENCY = 4;
/** Delivered notices are kept an hour, given-up ones a week, for inspection with BullMQ tools. */
const KEEP_COMPLETED_S = 3_600;
const KEEP_FAILED_S = 7 * 24 * 3_600;
/** Longest wait for each closing step; a sender's own timeout bounds an attempt in flight. */
const CLOSE_TIMEOUT_MS = 15_000;
/**
 * Notices kept in memory while Redis is away, queued once it is back: far more than the approvals
 * a gateway holds at once (each is a call waiting for a human); past it, a notice is refused and
 * the gate treats it as undeliverable.
 */
const OUTBOX_LIMIT = 10_000;
/** Pause before queuing the kept notices again when Redis answered but a write still failed. */
const OUTBOX_RETRY_MS = 1_000;
/** Replies of a Redis that answers but cannot serve yet: kept for later like a lost connection. */
const NOT_READY_REPLY = /^(LOADING|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|READONLY)\b/;

export interface BullmqDeliveryOptions {
  /** `approvals.delivery.redis_url`. */
  url: string;
  senders: readonly ChannelSender[];
  /** `approvals.delivery.max_attempts`: attempts per notice, the first included. */
  attempts: number;
  /** `approvals.delivery.backoff_s` in ms: the first retry's delay, doubling after each attempt. */
  backoffMs: number;
  /** Told once of a notice whose last attempt failed (or that can never be delivered). */
  onGivenUp(notice: ApprovalNotice, reason: string): Promise<void> | void;
  logger: Logger;
}

type NoticeJob = Job<ApprovalNotice, void, string>;

/**
 * Approval delivery as BullMQ jobs in Redis: the notice is queued durably, and a worker on every
 * replica attempts it with exponential backoff until it is delivered or its attempts run out. A
 * sender's permanent refusal (a 4xx) ends the retries at once.
 */
export class BullmqApprovalDelivery implements ApprovalDelivery {
  private readonly senders: ReadonlyMap<string, ChannelSender>;
  private closing: Promise<void> | null = null;
  /** Notices accepted while Redis was away, by job id, queued in order once it is back. */
  private readonly outbox = new Map<string, ApprovalNotice>();
  private flushing: Promise<void> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;

  private constructor(
    private readonly options: BullmqDeliveryOptions,
    private readonly queueClient: Redis,
    private readonly workerClient: Redis,
    private readonly queue: Queue<ApprovalNotice, void, string>,
    private readonly worker: Worker<ApprovalNotice, void, string>,
  ) {
    this.senders = new Map(options.senders.map((sender) => [sender.channel, sender]));
    // Every (re)connection queues what was kept meanwhile.
    queueClient.on("ready", () => void this.flush());
  }

  /**
   * Creates the queue and its worker. Never rejects for an unreachable Redis: the clients keep
   * reconnecting, and `probe` tells whether Redis answers now.
   */
  static open(options: BullmqDeliveryOptions): BullmqApprovalDelivery {
    // The producer gives up on a command after one reconnection attempt, so a hold does not wait
    // long on a queue that is down; the worker's blocking connection retries forever, as BullMQ
    // requires.
    const queueClient = new Redis(options.url, {
      connectTimeout: CONNECT_TIMEOUT_MS,
      maxRetriesPerRequest: 1,
    });
    const workerClient = new Redis(options.url, {
      connectTimeout: CONNECT_TIMEOUT_MS,
      maxRetriesPerRequest: null,
    });
    const reported = new Set<string>();
    const onError = (source: string) => (error: Error) => {
      // A reconnecting client repeats the same error; each distinct one is logged once.
      const key = `${source}:${error.message}`;
      if (reported.has(key)) return;
      reported.add(key);
      options.logger.warn({ source, err: error.message }, "approval delivery: Redis error");
    };
    queueClient.on("error", onError("queue"));
    workerClient.on("error", onError("worker"));
    queueClient.on("ready", () => reported.clear());
    const queue = new Queue<ApprovalNotice, void, string>(QUEUE_NAME, {
      connection: queueClient,
      prefix: PREFIX,
    });
    queue.on("error", onError("queue"));
    let delivery: BullmqApprovalDelivery | undefined;
    const worker = new Worker<ApprovalNotice, void, string>(
      QUEUE_NAME,
      (job) => (delivery as BullmqApprovalDelivery).process(job),
      { connection: workerClient, prefix: PREFIX, concurrency: CONCURRENCY, autorun: true },
    );
    worker.on("error", onError("worker"));
    delivery = new BullmqApprovalDelivery(options, queueClient, workerClient, queue, worker);
    worker.on("failed", (job, error) => delivery.failed(job, error));
    return delivery;
  }

  serves(channel: string): boolean {
    return this.senders.has(channel);
  }

  /**
   * Queues the notice in Redis. While Redis is away (not connected, or the write is lost with its
   * connection) the notice is kept in this process and queued as soon as Redis is back, so the
   * request is delivered then; it is lost only if the process ends first. Rejects when Redis
   * refuses the write itself, or when too many notices already wait.
   */
  async enqueue(notice: ApprovalNotice): Promise<void> {
    // Behind notices kept earlier: they are queued first.
    if (this.queueClient.status !== "ready" || this.outbox.size > 0) return this.keep(notice);
    try {
      await this.add(notice);
    } catch (error) {
      if (refusedByRedis(error)) throw error;
      this.keep(notice);
    }
  }

  private add(notice: ApprovalNotice): Promise<unknown> {
    return this.queue.add(notice.channel, notice, {
      jobId: jobIdOf(notice),
      attempts: this.options.attempts,
      backoff: { type: "exponential", delay: this.options.backoffMs },
      removeOnComplete: { age: KEEP_COMPLETED_S },
      removeOnFail: { age: KEEP_FAILED_S },
    });
  }

  private keep(notice: ApprovalNotice): void {
    if (this.closing) throw new Error("approval delivery is closing");
    if (this.outbox.size >= OUTBOX_LIMIT) {
      throw new Error(`Redis is unreachable and ${OUTBOX_LIMIT} approval requests already wait for it`);
    }
    if (this.outbox.size === 0) {
      this.options.logger.warn(
        { approval_id: notice.approval.approval_id, channel: notice.channel },
        "approval delivery: Redis unreachable; requests are kept and queued once it is back",
      );
    }
    this.outbox.set(jobIdOf(notice), notice);
    if (this.queueClient.status === "ready") this.scheduleFlush();
  }

  /** Queues the kept notices in order, one pass at a time. */
  private flush(): Promise<void> {
    if (!this.flushing) {
      const pass = this.drainOutbox().finally(() => {
        if (this.flushing === pass) this.flushing = null;
      });
      this.flushing = pass;
    }
    return this.flushing;
  }

  /** Stops at the first failure and tries again later. */
  private async drainOutbox(): Promise<void> {
    try {
      for (const [jobId, notice] of this.outbox) {
        if (this.closing) return;
        try {
          await this.add(notice);
        } catch (error) {
          if (!refusedByRedis(error)) throw error;
          // Redis answered and refused this one (out of memory, ...): it would block the others.
          this.outbox.delete(jobId);
          this.options.logger.error(
            { approval_id: notice.approval.approval_id, channel: notice.channel, err: String(error) },
            "approval request could not be delivered: Redis refused to queue it",
          );
          continue;
        }
        this.outbox.delete(jobId);
        this.options.logger.info(
          { approval_id: notice.approval.approval_id, channel: notice.channel },
          "approval request queued after Redis returned",
        );
      }
    } catch (error) {
      this.options.logger.warn(
        { err: error instanceof Error ? error.message : String(error), waiting: this.outbox.size },
        "approval delivery: kept requests not queued yet; retrying",
      );
      this.scheduleFlush();
    }
  }

  private scheduleFlush(): void {
    if (this.retryTimer || this.closing) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      // Not connected: the next "ready" flushes.
      if (this.queueClient.status === "ready") void this.flush();
    }, OUTBOX_RETRY_MS);
    this.retryTimer.unref();
  }

  /** Whether Redis answers a PING now; the reason when it does not. */
  async probe(): Promise<{ ok: true } | { ok: false; reason: string }> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const answer = await Promise.race([
        this.queueClient.ping(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("no answer in time")), CONNECT_TIMEOUT_MS);
        }),
      ]);
      return answer === "PONG" ? { ok: true } : { ok: false, reason: `PING answered ${answer}` };
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.retryTimer) clearTimeout(this.retryTimer);
      if (this.outbox.size > 0) {
        this.options.logger.error(
          { waiting: this.outbox.size },
          "approval delivery closing with requests Redis never received",
        );
      }
      const clients = [this.queueClient, this.workerClient];
      // A Redis that never answered leaves nothing in flight: dropping the connections first lets
      // BullMQ's pending initialisation end instead of waiting for a server that is not there.
      const unreachable = clients.some((client) => client.status !== "ready");
      if (unreachable) for (const client of clients) client.disconnect();
      // The worker first: attempts in flight finish (each is bounded by its sender's timeout).
      await bounded(this.worker.close(unreachable), CLOSE_TIMEOUT_MS);
      await bounded(this.queue.close(), CLOSE_TIMEOUT_MS);
      // The clients were handed in, so BullMQ leaves them open.
      for (const client of clients) {
        await bounded(client.quit(), CLOSE_TIMEOUT_MS);
        client.disconnect();
      }
    })();
    return this.closing;
  }

  private async process(job: NoticeJob): Promise<void> {
    const notice = job.data;
    const sender = this.senders.get(notice.channel);
    if (!sender) throw new UnrecoverableError(`no sender for channel ${notice.channel}`);
    const outcome = await sender.send(notice);
    if (outcome.ok) {
      this.options.logger.info(
        { approval_id: notice.approval.approval_id, channel: notice.channel, attempt: job.attemptsMade + 1 },
        "approval request delivered",
      );
      return;
    }
    if (outcome.permanent) throw new UnrecoverableError(outcome.reason);
    throw new Error(outcome.reason);
  }

  private failed(job: NoticeJob | undefined, error: Error): void {
    if (!job) return;
    const notice = job.data;
    // `finishedOn` is set only when the job moved to failed for good (no retry left).
    const final = typeof job.finishedOn === "number";
    this.options.logger.warn(
      {
        approval_id: notice.approval.approval_id,
        channel: notice.channel,
        attempt: job.attemptsMade,
        reason: error.message,
        final,
      },
      final ? "approval request delivery given up" : "approval request delivery failed; retrying",
    );
    if (final) {
      void Promise.resolve(this.options.onGivenUp(notice, error.message)).catch((failure) =>
        this.options.logger.error(
          { approval_id: notice.approval.approval_id, err: String(failure) },
          "could not record an undeliverable approval",
        ),
      );
    }
  }
}

/** Redis answered and refused the write: unlike a lost connection, waiting does not help. */
function refusedByRedis(error: unknown): boolean {
  return error instanceof ReplyError && !NOT_READY_REPLY.test((error as Error).message);
}

/** One job per approval and channel: queuing the same notice twice delivers it once. */
const jobIdOf = (notice: ApprovalNotice) => `${notice.approval.approval_id}.${notice.channel}`;

/** Waits for `promise` at most `ms`; its failure or lateness is not the caller's concern. */
async function bounded(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    promise.catch(() => undefined),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
