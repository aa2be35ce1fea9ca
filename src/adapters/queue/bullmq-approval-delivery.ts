import { type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
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

  private constructor(
    private readonly options: BullmqDeliveryOptions,
    private readonly queueClient: Redis,
    private readonly workerClient: Redis,
    private readonly queue: Queue<ApprovalNotice, void, string>,
    private readonly worker: Worker<ApprovalNotice, void, string>,
  ) {
    this.senders = new Map(options.senders.map((sender) => [sender.channel, sender]));
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

  async enqueue(notice: ApprovalNotice): Promise<void> {
    await this.queue.add(notice.channel, notice, {
      // One job per approval and channel: queuing the same notice twice delivers it once.
      jobId: `${notice.approval.approval_id}.${notice.channel}`,
      attempts: this.options.attempts,
      backoff: { type: "exponential", delay: this.options.backoffMs },
      removeOnComplete: { age: KEEP_COMPLETED_S },
      removeOnFail: { age: KEEP_FAILED_S },
    });
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
