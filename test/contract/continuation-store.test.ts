import { randomBytes, randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryContinuationStore } from "../../src/adapters/continuations/memory-continuation-store.js";
import { openRedisContinuationStore } from "../../src/adapters/continuations/redis-continuation-store.js";
import type { Clock } from "../../src/app/ports/clock.js";
import type { ContinuationOwner, ContinuationStore } from "../../src/app/ports/continuation-store.js";
import { openContinuations } from "../../src/composition/open-continuations.js";
import { parseConfig } from "../../src/config/load.js";
import { describeRedis, REDIS_URL } from "../support/redis.js";

const logger = pino({ level: "silent" });
const alice: ContinuationOwner = { principal_id: "alice", tenant_id: "t1" };
const bob: ContinuationOwner = { principal_id: "bob", tenant_id: "t1" };
const aliceElsewhere: ContinuationOwner = { principal_id: "alice", tenant_id: "t2" };
const anonymous: ContinuationOwner = { principal_id: "anonymous", tenant_id: null };

const newId = (index = 0) => `cont_${randomUUID()}_${index}_${randomBytes(4).toString("hex")}`;

class ManualClock implements Clock {
  constructor(public mono = 1_000) {}
  now() {
    return 1_700_000_000_000 + this.mono;
  }
  monotonic() {
    return this.mono;
  }
}

interface Harness {
  /** A store whose entries live `ttlSeconds`. */
  open(ttlSeconds: number): Promise<ContinuationStore>;
  /** Lets more than one second pass for the store's entries. */
  passOneSecond(): Promise<void>;
}

const HARNESSES: Record<"memory" | "redis", () => Harness> = {
  memory: () => {
    const clock = new ManualClock();
    return {
      open: async (ttlSeconds) => new MemoryContinuationStore({ ttlSeconds, maxEntries: 1_000, clock }),
      passOneSecond: async () => {
        clock.mono += 1_001;
      },
    };
  },
  redis: () => ({
    open: (ttlSeconds) => openRedisContinuationStore({ url: REDIS_URL, ttlSeconds, logger }),
    // Redis expires keys on its own clock: real time has to pass.
    passOneSecond: () => new Promise((resolve) => setTimeout(resolve, 1_500)),
  }),
};

for (const driver of ["memory", "redis"] as const) {
  await (driver === "redis" ? describeRedis : describeNow)(`ContinuationStore on ${driver}`, () => {
    let harness: Harness;
    let store: ContinuationStore;
    beforeEach(async () => {
      harness = HARNESSES[driver]();
      store = await harness.open(300);
    });
    afterEach(async () => {
      await store.close();
    });

    it("keeps UTF-8 text and reads back any byte range, clamped to its size", async () => {
      const text = `{"text":"naïve € 😀 ${"x".repeat(100)}"}`;
      const bytes = Buffer.from(text, "utf8");
      const id = newId();
      expect(await store.put(id, alice, text)).toBe(true);
      expect(store.driver).toBe(driver);
      const whole = await store.read(id, alice, 0, 1_000);
      expect(whole?.total_bytes).toBe(bytes.length);
      expect(Buffer.from(whole!.bytes).equals(bytes)).toBe(true);
      const middle = await store.read(id, alice, 5, 20);
      expect(Buffer.from(middle!.bytes).equals(bytes.subarray(5, 20))).toBe(true);
      const past = await store.read(id, alice, bytes.length + 10, bytes.length + 50);
      expect(past).toEqual({ total_bytes: bytes.length, bytes: expect.anything() });
      expect(past!.bytes.length).toBe(0);
      const empty = await store.read(id, alice, 7, 7);
      expect(empty!.bytes.length).toBe(0);
    });

    it("keeps a text of several megabytes byte for byte", async () => {
      const text = Array.from({ length: 60_000 }, (_, i) => `line ${i} ${"é".repeat(i % 40)}`).join("\n");
      const bytes = Buffer.from(text, "utf8");
      const id = newId(3);
      await store.put(id, anonymous, text);
      const chunks: Buffer[] = [];
      for (let offset = 0; offset < bytes.length; offset += 1_000_000) {
        const slice = await store.read(id, anonymous, offset, offset + 1_000_000);
        chunks.push(Buffer.from(slice!.bytes));
      }
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    });

    it("answers only the owner it was stored for", async () => {
      const id = newId();
      await store.put(id, alice, "secret rows");
      expect(await store.read(id, bob, 0, 100)).toBeNull();
      expect(await store.read(id, aliceElsewhere, 0, 100)).toBeNull();
      expect(await store.delete(id, bob)).toBe(false);
      expect(await store.delete(id, aliceElsewhere)).toBe(false);
      expect((await store.read(id, alice, 0, 100))?.total_bytes).toBe(11);
    });

    it("deletes an entry once; it is not found afterwards", async () => {
      const id = newId();
      await store.put(id, alice, "rows");
      expect(await store.delete(id, alice)).toBe(true);
      expect(await store.read(id, alice, 0, 10)).toBeNull();
      expect(await store.delete(id, alice)).toBe(false);
    });

    it("answers not found for an id never stored", async () => {
      expect(await store.read(newId(), alice, 0, 10)).toBeNull();
      expect(await store.delete(newId(), alice)).toBe(false);
    });

    it("replaces an entry stored again under the same id", async () => {
      const id = newId();
      await store.put(id, alice, "first version");
      await store.put(id, alice, "second");
      const read = await store.read(id, alice, 0, 100);
      expect(Buffer.from(read!.bytes).toString()).toBe("second");
    });

    it("forgets an entry after its time to live", async () => {
      const shortLived = await harness.open(1);
      try {
        const id = newId();
        await shortLived.put(id, alice, "soon gone");
        expect(await shortLived.read(id, alice, 0, 100)).not.toBeNull();
        await harness.passOneSecond();
        expect(await shortLived.read(id, alice, 0, 100)).toBeNull();
        expect(await shortLived.delete(id, alice)).toBe(false);
      } finally {
        await shortLived.close();
      }
    });

    it("closes more than once without failing", async () => {
      await store.close();
      await store.close();
    });
  });
}

describe("MemoryContinuationStore bounds", () => {
  let clock: ManualClock;
  beforeEach(() => {
    clock = new ManualClock();
  });

  it("evicts the oldest entry first once max_cache_entries are held", async () => {
    const store = new MemoryContinuationStore({ ttlSeconds: 300, maxEntries: 3, clock });
    const ids = [newId(0), newId(1), newId(2), newId(3)];
    for (const id of ids.slice(0, 3)) await store.put(id, alice, id);
    // Reading does not make an entry younger: eviction is by age, not by use.
    await store.read(ids[0]!, alice, 0, 10);
    await store.put(ids[3]!, alice, "newest");
    expect(store.size).toBe(3);
    expect(await store.read(ids[0]!, alice, 0, 10)).toBeNull();
    for (const id of ids.slice(1)) expect(await store.read(id, alice, 0, 10)).not.toBeNull();
  });

  it("evicts the oldest entries to stay within its byte cap, and declines a text larger than the cap", async () => {
    const store = new MemoryContinuationStore({ ttlSeconds: 300, maxEntries: 100, maxBytes: 100, clock });
    const [a, b, c, big] = [newId(0), newId(1), newId(2), newId(3)];
    await store.put(a!, alice, "a".repeat(40));
    await store.put(b!, alice, "b".repeat(40));
    await store.put(c!, alice, "c".repeat(40));
    expect(await store.read(a!, alice, 0, 1)).toBeNull();
    expect(store.bytes).toBe(80);
    expect(await store.put(big!, alice, "€".repeat(34))).toBe(false);
    expect(await store.read(big!, alice, 0, 1)).toBeNull();
    expect(await store.read(b!, alice, 0, 1)).not.toBeNull();
    expect(store.bytes).toBe(80);
  });

  it("sweeps expired entries on write, so they hold neither a slot nor bytes", async () => {
    const store = new MemoryContinuationStore({ ttlSeconds: 1, maxEntries: 2, maxBytes: 1_000, clock });
    await store.put(newId(0), alice, "x".repeat(300));
    await store.put(newId(1), alice, "y".repeat(300));
    clock.mono += 1_001;
    const fresh = newId(2);
    await store.put(fresh, alice, "z");
    expect(store.size).toBe(1);
    expect(store.bytes).toBe(1);
  });
});

await describeRedis("RedisContinuationStore specifics", () => {
  let inspector: Redis;
  beforeEach(() => {
    inspector = new Redis(REDIS_URL);
  });
  afterEach(async () => {
    await inspector.quit();
  });

  it("writes every key with SETEX and the configured time to live", async () => {
    const store = await openRedisContinuationStore({ url: REDIS_URL, ttlSeconds: 120, logger });
    try {
      const id = newId();
      await store.put(id, alice, "rows");
      const keys = await inspector.keys(`airlock:continuation:${id}:*`);
      expect(keys.sort()).toEqual([`airlock:continuation:${id}:data`, `airlock:continuation:${id}:owner`]);
      for (const key of keys) {
        const ttl = await inspector.ttl(key);
        expect(ttl).toBeGreaterThan(100);
        expect(ttl).toBeLessThanOrEqual(120);
      }
      await store.delete(id, alice);
      expect(await inspector.keys(`airlock:continuation:${id}:*`)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("refuses to open when nothing answers at the URL, saying why", async () => {
    await expect(
      openRedisContinuationStore({ url: "redis://127.0.0.1:1", ttlSeconds: 60, logger }),
    ).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe("openContinuations (composition)", () => {
  const truncation = (yaml: string) =>
    parseConfig(`mcp_servers: {}\ntruncation:\n${yaml}`, { env: {} }).config.truncation;
  const deps = { clock: new ManualClock(), logger };

  it("opens nothing while truncation is disabled", async () => {
    expect(await openContinuations(truncation("  enabled: false"), deps)).toBeNull();
  });

  it("opens the memory store with the configured settings", async () => {
    const opened = await openContinuations(
      truncation(
        "  enabled: true\n  max_batch_size_bytes: 5000\n  min_per_response_bytes: 1000\n" +
          "  preserve_json_structure: false",
      ),
      deps,
    );
    expect(opened?.store.driver).toBe("memory");
    expect(opened?.settings).toEqual({
      maxBatchBytes: 5000,
      minPerResponseBytes: 1000,
      preserveJsonStructure: false,
      truncateOnLineBoundary: true,
    });
    await opened?.store.close();
  });

  it("refuses the redis driver without a URL, naming truncation.redis_url", async () => {
    const settings = { ...truncation("  enabled: true"), cache_driver: "redis" as const };
    await expect(openContinuations(settings, deps)).rejects.toThrow(/^truncation\.redis_url: required/);
  });

  it("refuses a malformed Redis URL, naming truncation.redis_url", async () => {
    for (const redis_url of ["redis://h:99999", "redis://", "redis://h/notadb", "http://h:6379"]) {
      const settings = { ...truncation("  enabled: true"), cache_driver: "redis" as const, redis_url };
      await expect(openContinuations(settings, deps)).rejects.toThrow(/^truncation\.redis_url: /);
    }
  });

  it("refuses a Redis that does not answer, naming truncation.redis_url and hiding the password", async () => {
    const settings = {
      ...truncation("  enabled: true"),
      cache_driver: "redis" as const,
      redis_url: "redis://:hunter2@127.0.0.1:1/0",
    };
    const failure = openContinuations(settings, deps);
    await expect(failure).rejects.toThrow(
      /^truncation\.redis_url: Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1\/0 /,
    );
    await expect(failure).rejects.not.toThrow(/hunter2/);
  });
});

async function describeNow(name: string, body: () => void): Promise<void> {
  describe(name, body);
}
