import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { connectionFailure } from "../../../src/adapters/store/postgres/connection-failure.js";
import { StoreAvailabilityTracker } from "../../../src/app/persistence/store-availability-tracker.js";
import { storeReadiness } from "../../../src/composition/store-readiness.js";
import { ManualClock } from "../../support/fleet.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const trackers: StoreAvailabilityTracker[] = [];

function tracker(probe: () => Promise<void>, clock = new ManualClock(), probeIntervalMs = 10) {
  const made = new StoreAvailabilityTracker({
    clock,
    logger: silent,
    description: "postgresql test@db",
    probe,
    probeIntervalMs,
  });
  trackers.push(made);
  return made;
}

afterEach(() => {
  for (const made of trackers.splice(0)) made.close();
});

describe("the store availability tracker", () => {
  it("dates the outage from the first failed query and ends it with the next answered one", () => {
    const clock = new ManualClock();
    const availability = tracker(() => Promise.reject(new Error("down")), clock, 60_000);
    expect(availability.unreachableSince()).toBeNull();
    availability.unreachable("ECONNREFUSED");
    const since = availability.unreachableSince();
    expect(since).toBe(clock.monotonic());
    clock.advance(500);
    availability.unreachable("ECONNRESET");
    expect(availability.unreachableSince()).toBe(since);
    availability.reached();
    expect(availability.unreachableSince()).toBeNull();
  });

  it("tells its listeners once each time the store turns reachable again, not on every answered query", () => {
    const availability = tracker(() => Promise.reject(new Error("down")), new ManualClock(), 60_000);
    let told = 0;
    const remove = availability.onReachable(() => {
      told += 1;
    });
    availability.onReachable(() => {
      throw new Error("a failing listener");
    });
    availability.reached();
    expect(told).toBe(0);
    availability.unreachable();
    availability.reached();
    availability.reached();
    expect(told).toBe(1);
    remove();
    availability.unreachable();
    availability.reached();
    expect(told).toBe(1);
  });

  it("probes while the store is unreachable, notices its return without traffic, then stops probing", async () => {
    let up = false;
    let probes = 0;
    const availability = tracker(async () => {
      probes += 1;
      if (!up) throw new Error("down");
    });
    await sleep(50);
    expect(probes).toBe(0);
    availability.unreachable();
    await sleep(60);
    expect(availability.unreachableSince()).not.toBeNull();
    expect(probes).toBeGreaterThan(1);
    up = true;
    await sleep(40);
    expect(availability.unreachableSince()).toBeNull();
    const settled = probes;
    await sleep(50);
    expect(probes).toBe(settled);
  });
});

describe("readiness on store availability", () => {
  it("stays ready within the grace, answers 503 past it and ready again once the store is back", () => {
    const clock = new ManualClock();
    const availability = tracker(() => Promise.reject(new Error("down")), clock, 60_000);
    const check = storeReadiness(availability, 5, clock);
    expect(check.check()).toEqual({ ready: true });
    availability.unreachable();
    clock.advance(4_000);
    expect(check.check()).toMatchObject({ ready: true, detail: { status: "degraded", reachable: false } });
    clock.advance(1_500);
    expect(check.check()).toMatchObject({
      ready: false,
      detail: { status: "unhealthy", reachable: false, unreachable_for_s: 5.5, readiness_grace_s: 5 },
    });
    availability.reached();
    expect(check.check()).toEqual({ ready: true });
  });
});

describe("PostgreSQL failures told apart", () => {
  const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

  it("calls a refused, reset or timed-out connection, a shutting-down server and class 08 unreachable", () => {
    expect(connectionFailure(withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"))).toBe(
      "unreachable",
    );
    expect(connectionFailure(withCode("read ECONNRESET", "ECONNRESET"))).toBe("unreachable");
    expect(connectionFailure(new Error("Connection terminated unexpectedly"))).toBe("unreachable");
    expect(
      connectionFailure(
        new Error("Connection terminated due to connection timeout", { cause: new Error("x") }),
      ),
    ).toBe("unreachable");
    expect(connectionFailure(new Error("Query read timeout"))).toBe("unreachable");
    expect(connectionFailure(withCode("terminating connection due to administrator command", "57P01"))).toBe(
      "unreachable",
    );
    expect(connectionFailure(withCode("the database system is starting up", "57P03"))).toBe("unreachable");
    expect(connectionFailure(withCode("connection failure", "08006"))).toBe("unreachable");
    expect(
      connectionFailure(
        new AggregateError([withCode("a", "ECONNREFUSED"), withCode("b", "ECONNREFUSED")], "connect"),
      ),
    ).toBe("unreachable");
  });

  it("calls a pool with no free connection and too many clients saturated", () => {
    expect(connectionFailure(new Error("timeout exceeded when trying to connect"))).toBe("saturated");
    expect(connectionFailure(withCode("sorry, too many clients already", "53300"))).toBe("saturated");
  });

  it("leaves ordinary SQL errors as they are", () => {
    expect(connectionFailure(withCode("duplicate key value", "23505"))).toBeNull();
    expect(connectionFailure(withCode("syntax error", "42601"))).toBeNull();
    expect(connectionFailure(withCode("canceling statement due to statement timeout", "57014"))).toBeNull();
    expect(connectionFailure("not an error")).toBeNull();
  });
});
