import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import type {
  ContinuationBytes,
  ContinuationOwner,
  ContinuationStore,
} from "../../app/ports/continuation-store.js";
import type { Logger } from "../../app/ports/logger.js";
import { ownerKey } from "./owner-key.js";

/** Key prefix of every continuation key: the database may be shared with other applications. */
const PREFIX = "airlock:continuation:";
/**
 * Connecting, and every command: long enough for a 10 MB SETEX on a busy server, short enough
 * that a hung Redis does not hold a batch, or the boot, for long.
 */
const TIMEOUT_MS = 5_000;

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

  async put(id: string, owner: ContinuationOwner, text: string): Promise<boolean> {
    const ttl = this.options.ttlSeconds;
    const replies = await this.client
      .multi()
      .setex(dataKey(id), ttl, text)
      .setex(ownerKeyOf(id), ttl, ownerKey(owner))
      .exec();
    throwFirstError(replies);
    return true;
  }

  async read(
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

  async delete(id: string, owner: ContinuationOwner): Promise<boolean> {
    const storedOwner = await this.client.get(ownerKeyOf(id));
    if (storedOwner === null || storedOwner !== ownerKey(owner)) return false;
    return (await this.client.del(dataKey(id), ownerKeyOf(id))) > 0;
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

const dataKey = (id: string) => `${PREFIX}${id}:data`;
const ownerKeyOf = (id: string) => `${PREFIX}${id}:owner`;

/** A MULTI answers each command's error in place; the first one fails the whole call. */
function throwFirstError(replies: [Error | null, unknown][] | null): void {
  if (replies === null) throw new Error("the Redis transaction was aborted");
  for (const [error] of replies) if (error) throw error;
}
