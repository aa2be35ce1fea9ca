import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { memoryRepositories } from "../../../src/adapters/store/memory/memory-repositories.js";
import { SystemClock } from "../../../src/adapters/system/system-clock.js";
import { LeaderElector } from "../../../src/app/coordination/leader-elector.js";
import type { LeaseStore } from "../../../src/app/ports/lease-store.js";
import { Supervisor } from "../../../src/control/supervisor.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} } as never;
/** Short but valid timings: deadline < TTL, interval x 1.2 < deadline. */
const timing = { leaseTtlS: 0.6, renewIntervalS: 0.1, renewDeadlineS: 0.4 };
const electors: LeaderElector[] = [];

function elector(store: LeaseStore, holder: string): LeaderElector {
  const created = new LeaderElector({
    store,
    clock: new SystemClock(),
    logger: silent,
    name: "m",
    holder,
    timing,
  });
  electors.push(created);
  return created;
}

async function until(condition: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(10);
  }
}

afterEach(async () => {
  await Promise.all(electors.splice(0).map((e) => e.stop()));
});

describe("the leader elector", () => {
  it("refuses timings whose deadline is not under the TTL", () => {
    const store = memoryRepositories().lease;
    expect(
      () =>
        new LeaderElector({
          store,
          clock: new SystemClock(),
          logger: silent,
          name: "m",
          holder: "a",
          timing: { leaseTtlS: 1, renewIntervalS: 0.1, renewDeadlineS: 1 },
        }),
    ).toThrow(/renew_deadline_s/);
  });

  it("asks again when a lease request hangs (a dead connection) and is elected once the store answers", async () => {
    const memory = memoryRepositories().lease;
    let hung = 0;
    const store: LeaseStore = {
      acquire(name, holder, ttl) {
        if (hung < 2) {
          hung += 1;
          return new Promise(() => undefined);
        }
        return memory.acquire(name, holder, ttl);
      },
      renew: (...args) => memory.renew(...args),
      release: (...args) => memory.release(...args),
      read: (name) => memory.read(name),
    };
    const a = elector(store, "a");
    a.start();
    await until(() => a.isLeader, 5_000);
    expect(hung).toBe(2);
  });

  it("elects one of two contenders and hands over on a graceful stop", async () => {
    const store = memoryRepositories().lease;
    const a = elector(store, "a");
    const b = elector(store, "b");
    a.start();
    await until(() => a.isLeader);
    b.start();
    await sleep(300);
    expect(b.isLeader).toBe(false);
    const generation = a.term()!.generation;
    await a.stop();
    expect(a.isLeader).toBe(false);
    await until(() => b.isLeader, 1_000);
    expect(b.term()!.generation).toBe(generation + 1);
  });

  it("steps down by its own deadline, before the lease expires, when renewals hang", async () => {
    const inner = memoryRepositories().lease;
    let hang = false;
    const store: LeaseStore = {
      acquire: (...args) => inner.acquire(...args),
      renew: (...args) => (hang ? new Promise(() => undefined) : inner.renew(...args)),
      release: (...args) => inner.release(...args),
      read: (...args) => inner.read(...args),
    };
    const a = elector(store, "a");
    const changes: [boolean, string | undefined][] = [];
    a.onChange((change) => {
      changes.push([change.leader, change.reason]);
    });
    a.start();
    await until(() => a.isLeader);
    hang = true;
    await until(() => !a.isLeader, 1_000);
    // The row is still live in the store: the step-down came first.
    expect((await inner.read("m"))!.expires_in).toBeGreaterThan(0);
    await until(() => changes.length === 2, 1_000);
    expect(changes).toEqual([
      [true, undefined],
      [false, "renew_deadline_passed"],
    ]);
  });

  it("reports a failed renewal and keeps the term, then steps down on a refused one", async () => {
    const inner = memoryRepositories().lease;
    let renewals: "work" | "fail" | "refuse" = "work";
    const store: LeaseStore = {
      acquire: (...args) => inner.acquire(...args),
      renew: async (...args) => {
        if (renewals === "fail") {
          renewals = "work";
          throw new Error("connection reset");
        }
        return renewals === "refuse" ? undefined : inner.renew(...args);
      },
      release: (...args) => inner.release(...args),
      read: (...args) => inner.read(...args),
    };
    const a = elector(store, "a");
    let failures = 0;
    a.onRenewalFailure(() => {
      failures += 1;
    });
    const losses: (string | undefined)[] = [];
    a.onChange((change) => {
      if (!change.leader) losses.push(change.reason);
    });
    a.start();
    await until(() => a.isLeader);
    renewals = "fail";
    await until(() => failures === 1);
    expect(a.isLeader).toBe(true);
    renewals = "refuse";
    await until(() => losses.length === 1, 1_000);
    expect(losses).toEqual(["renewal_refused"]);
    expect(failures).toBe(1);
  });

  it("stops leader-only work before it releases the lease on shutdown", async () => {
    const store = memoryRepositories().lease;
    const a = elector(store, "a");
    const order: string[] = [];
    const supervisor = new Supervisor(
      [
        {
          name: "work",
          start: () => order.push("started"),
          stop: async () => {
            await sleep(50);
            // Still held while the work stops.
            order.push(`stopped while ${(await store.read("m"))!.expires_in > 0 ? "held" : "released"}`);
          },
        },
      ],
      { logger: silent, leadership: a },
    );
    supervisor.start();
    a.start();
    await until(() => order.length === 1);
    const reasons: (string | undefined)[] = [];
    a.onChange((change) => {
      reasons.push(change.reason);
    });
    await a.stop();
    await supervisor.stop();
    expect(order).toEqual(["started", "stopped while held"]);
    expect(reasons).toEqual(["shutdown"]);
    expect((await store.read("m"))!.expires_in).toBeLessThanOrEqual(0);
  });

  it("runs the work from start to stop without a leadership", async () => {
    const order: string[] = [];
    const supervisor = new Supervisor(
      [{ name: "work", start: () => order.push("started"), stop: () => void order.push("stopped") }],
      {
        logger: silent,
      },
    );
    supervisor.start();
    await until(() => order.length === 1);
    await supervisor.stop();
    expect(order).toEqual(["started", "stopped"]);
  });
});
