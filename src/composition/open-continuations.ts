import { MemoryContinuationStore } from "../adapters/continuations/memory-continuation-store.js";
import type { Clock } from "../app/ports/clock.js";
import type { Logger } from "../app/ports/logger.js";
import type { Continuations } from "../app/services.js";
import { redisUrlProblem } from "../config/schema/primitives.js";
import type { GatewayConfig } from "../config/schema.js";

/**
 * Opens the continuation store of `truncation.cache_driver`, or nothing while `truncation.enabled`
 * is false (results are then never cut). The `redis` driver fails closed (spec 2 §2): a missing or
 * malformed `truncation.redis_url`, or a server that does not complete a real SETEX round trip,
 * rejects with an error naming `truncation.redis_url`; there is no fallback to memory.
 */
export async function openContinuations(
  truncation: GatewayConfig["truncation"],
  deps: { clock: Clock; logger: Logger },
): Promise<Continuations | null> {
  if (!truncation.enabled) return null;
  const settings = {
    maxBatchBytes: truncation.max_batch_size_bytes,
    minPerResponseBytes: truncation.min_per_response_bytes,
    preserveJsonStructure: truncation.preserve_json_structure,
    truncateOnLineBoundary: truncation.truncate_on_line_boundary,
  };
  if (truncation.cache_driver === "memory") {
    const store = new MemoryContinuationStore({
      ttlSeconds: truncation.cache_ttl_s,
      maxEntries: truncation.max_cache_entries,
      clock: deps.clock,
    });
    deps.logger.info(
      { driver: "memory", ttl_s: truncation.cache_ttl_s, max_entries: truncation.max_cache_entries },
      "result truncation on; continuations kept in this replica's memory",
    );
    return { settings, store };
  }
  const url = truncation.redis_url;
  if (url === undefined || url.trim() === "") {
    throw new Error("truncation.redis_url: required when cache_driver is redis (no fallback to memory)");
  }
  const shown = describeRedisUrl(url);
  try {
    // ioredis loads only with the redis driver.
    const { openRedisContinuationStore } = await import(
      "../adapters/continuations/redis-continuation-store.js"
    );
    const store = await openRedisContinuationStore({
      url,
      ttlSeconds: truncation.cache_ttl_s,
      logger: deps.logger,
    });
    deps.logger.info(
      { driver: "redis", redis: shown, ttl_s: truncation.cache_ttl_s },
      "result truncation on; continuations kept in Redis",
    );
    return { settings, store };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `truncation.redis_url: Redis at ${shown} did not complete a SETEX round trip: ${reason} ` +
        "(cache_driver redis fails closed; there is no fallback to memory)",
    );
  }
}

/**
 * Checks the URL the way the client will read it and returns it fit for messages: credentials
 * masked. Throws an error naming `truncation.redis_url` when it cannot be used.
 */
function describeRedisUrl(url: string): string {
  const problem = redisUrlProblem(url);
  if (problem !== null) throw new Error(`truncation.redis_url: ${problem}`);
  const parsed = new URL(url);
  if (parsed.password !== "") parsed.password = "***";
  return parsed.toString();
}
