import { Redis } from "ioredis";
import { describe } from "vitest";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

let redisReachable: Promise<boolean> | undefined;

/** Whether Redis answers PING at REDIS_URL (checked once per test file). */
export function redisAvailable(): Promise<boolean> {
  redisReachable ??= (async () => {
    const client = new Redis(REDIS_URL, {
      lazyConnect: true,
      connectTimeout: 3_000,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on("error", () => undefined);
    try {
      await client.connect();
      return (await client.ping()) === "PONG";
    } catch {
      return false;
    } finally {
      client.disconnect();
    }
  })();
  return redisReachable;
}

/**
 * `describe` for Redis suites: skipped when the server is not reachable, except under `CI=true`,
 * where the suite runs and fails (CI must never pass by skipping).
 */
export async function describeRedis(name: string, body: () => void): Promise<void> {
  const available = await redisAvailable();
  if (!available && process.env.CI !== "true") {
    describe.skip(`${name} (Redis not reachable at ${REDIS_URL})`, body);
    return;
  }
  describe(name, body);
}
