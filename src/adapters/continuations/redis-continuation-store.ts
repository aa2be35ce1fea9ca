import { randomBytes } from "node:crypto";
import { Redis, ReplyError } from "ioredis";
import type {
  ContinuationBytes,
  ContinuationOwner,
  ContinuationStore,
} from "../../app/ports/continuation-store.js";
import type { Logger } from "../../app/ports/logger.js";
import { type GatewayError, storeUnavailable } from "../../domain/errors.js";
import { ownerKey } from "./owner-key.js";

/** Key prefix of every continuation key: the database may be shared with other applications. */
const PREFIX = "airlock:continuation:";
/**
 * Connecting, and every command: long enough for a 10 MB SETEX on a busy server, short enough
 * that a hung Redis does not hold a batch, or the boot, for long.
 */
const TIMEOUT_MS = 5_000;
/**
 * What a caller is told to wait while Redis is away: ioredis reconnects with a growing pause of at
 * most 2 s, so a Redis that is back is used again within about that long.
 */
const RETRY_AFTER_S = 2;
/** Names what is away in the error a caller sees. */
const STORE_NAME = "Redis truncation cache";
/** Replies of a Redis that answers but cannot serve yet (loading its data, a replica without master). */
const NOT_READY_REPLY = /^(LOADING|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)\b/;

export interface RedisContinuationOptions {
  /** `truncation.redis_url` (`redis://` or `rediss://`). */
  url: string;
  /** `truncation.cache_ttl_s`: every entry is written with SETEX and this time to live. */
  ttlSeconds: number;
  logger: Logger;
}

/**
 * Connects and proves the server works with a real SETEX, GET and DEL round trip before anything
 * relies on it. Rejects with the reason (never the URL's password) when it cannot; nothing is left
 * connected then.
 */
export async function openRedisContinuationStore(
  options: RedisContinuationOptions,
): Promise<RedisContinuationStore> {
  let lastError: string | null = null;
  const client = new Redis(options.url, {
    lazyConnect: true,
    connectTimeout: TIMEOUT_MS,
    commandTimeout: TIMEOUT_MS,
    // Fail fast while disconnected instead of queueing: a batch must not wait for Redis to return.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
  });
  const remember = (error: Error) => {
    lastError = error.message;
  };
  client.on("error", remember);
  try {
    await client.connect();
    const probe = `${PREFIX}probe:${randomBytes(8).toString("hex")}`;
    const value = randomBytes(8).toString("hex");
    await client.setex(probe, options.ttlSeconds, value);
    const echoed = await client.get(probe);
    await client.del(probe);
    if (echoed !== value) throw new Error("a value written with SETEX did not read back");
  } catch (error) {
    client.disconnect();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(lastError && lastError !== reason ? `${reason} (${lastError})` : reason);
  }
  const store = new RedisContinuationStore(client, options);
  client.off("error", remember);
  return store;
}

/**
 * Continuations in Redis (`cache_driver: redis`): shared by every replica using the same server.
 * Each entry is two keys written together in one MULTI with SETEX: the UTF-8 text and its owner.
 * Slices are read with GETRANGE, so a fetch moves only the bytes it returns. Redis's own memory
 * policy bounds the size; `max_cache_entries` is not enforced here.
 */
export class RedisContinuationStore implements ContinuationStore {
  readonly driver = "redis" as const;
  private closed = false;
  private outageReported = false;

  constructor(
    private readonly client: Redis,
    private readonly options: RedisContinuationOptions,
  ) {
    // Reconnection is ioredis's; an outage is logged once, when it begins, not on every attempt.
    client.on("error", (error: Error) => {
      if (this.outageReported || this.closed) return;
      this.outageReported = true;
      options.logger.warn({ err: error.message }, "continuation store lost Redis; reconnecting");
    });
    client.on("ready", () => {
      if (this.outageReported) options.logger.info({}, "continuation store reconnected to Redis");
      this.outageReported = false;
    });
  }

  put(id: string, owner: ContinuationOwner, text: string): Promise<boolean> {
    return this.guard(async () => {
      const ttl = this.options.ttlSeconds;
      const replies = await this.client
        .multi()
        .setex(dataKey(id), ttl, text)
        .setex(ownerKeyOf(id), ttl, ownerKey(owner))
        .exec();
      throwFirstError(replies);
      return true;
    });
  }

  read(id: string, owner: ContinuationOwner, start: number, end: number): Promise<ContinuationBytes | null> {
    return this.guard(() => this.readSlice(id, owner, start, end));
  }

  private async readSlice(
    id: string,
    owner: ContinuationOwner,
    start: number,
    end: number,
  ): Promise<ContinuationBytes | null> {
    const from = Math.max(0, start);
    const transaction = this.client.multi().get(ownerKeyOf(id)).strlen(dataKey(id));
    // GETRANGE's end is inclusive, and a negative one counts from the end: never ask for an empty range.
    if (end > from) transaction.getrangeBuffer(dataKey(id), from, end - 1);
    const replies = await transaction.exec();
    throwFirstError(replies);
    const [storedOwner, total, bytes] = (replies ?? []).map(([, reply]) => reply) as [
      string | null,
      number,
      Buffer | undefined,
    ];
    if (storedOwner === null || storedOwner !== ownerKey(owner)) return null;
    return { total_bytes: total, bytes: bytes ?? Buffer.alloc(0) };
  }

  delete(id: string, owner: ContinuationOwner): Promise<boolean> {
    return this.guard(async () => {
      const storedOwner = await this.client.get(ownerKeyOf(id));
      if (storedOwner === null || storedOwner !== ownerKey(owner)) return false;
      return (await this.client.del(dataKey(id), ownerKeyOf(id))) > 0;
    });
  }

  /**
   * Runs a command while Redis is connected; fails fast with StoreUnavailableError while it is not
   * (ioredis keeps reconnecting meanwhile), and turns a command lost with its connection into the
   * same. A reply error of a Redis that answered stays what it is.
   */
  private async guard<T>(command: () => Promise<T>): Promise<T> {
    if (this.client.status !== "ready") throw unavailable();
    try {
      return await command();
    } catch (error) {
      if (error instanceof ReplyError && !NOT_READY_REPLY.test((error as Error).message)) throw error;
      throw unavailable(error);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.client.quit();
    } catch {
      // Already disconnected: nothing is left to release.
      this.client.disconnect();
    }
  }
}

/** The error a caller sees; Redis's own text stays in `cause`, for logs. */
function unavailable(cause?: unknown): GatewayError {
  const error = storeUnavailable(STORE_NAME, RETRY_AFTER_S);
  if (cause !== undefined) Object.defineProperty(error, "cause", { value: cause, enumerable: false });
  return error;
}

const dataKey = (id: string) => `${PREFIX}${id}:data`;
const ownerKeyOf = (id: string) => `${PREFIX}${id}:owner`;

/** A MULTI answers each command's error in place; the first one fails the whole call. */
function throwFirstError(replies: [Error | null, unknown][] | null): void {
  if (replies === null) throw new Error("the Redis transaction was aborted");
  for (const [error] of replies) if (error) throw error;
}
