import { describe, expect, it } from "vitest";
import { MemoryLeaseStore } from "../../../src/adapters/store/memory/memory-lease-store.js";
import { MANAGEMENT_LEASE } from "../../../src/app/coordination/leadership.js";
import { activeAlerts } from "../../../src/app/operations/observability/active-alerts.js";
import type { LeaseStore } from "../../../src/app/ports/lease-store.js";
import type { AppServices } from "../../../src/app/services.js";

/** The lease alerts of `active-alerts`, over a lease store driven by a clock the test moves. */
function services(options: { coordinated: boolean; leader: boolean; lease: LeaseStore }): AppServices {
  return {
    fleet: { list: () => [] },
    groups: { views: () => [] },
    eventStore: { commitFailure: null },
    repositories: { lease: options.lease },
    instance: {
      instance_id: "replica-b",
      coordinates_with_peers: options.coordinated,
      manages_fleet: options.leader,
      storage_is_shareable: true,
      rate_limits_are_per_instance: true,
    },
    ...(options.coordinated && { coordination: { isLeader: options.leader } }),
  } as unknown as AppServices;
}

const run = async (svc: AppServices) =>
  (await activeAlerts.run(svc, { level: undefined }, {} as never)).alerts.map((a) => [a.type, a.details]);

describe("lease alerts", () => {
  it("warns on a replica without the lease when nobody holds it, and not while a peer holds it", async () => {
    let now = 1_000_000;
    const lease = new MemoryLeaseStore({ now: () => now });
    const follower = services({ coordinated: true, leader: false, lease });
    expect(await run(follower)).toEqual([["no_lease_holder", { last_holder: null }]]);
    await lease.acquire(MANAGEMENT_LEASE, "replica-a", 15);
    expect(await run(follower)).toEqual([]);
    now += 16_000;
    expect(await run(follower)).toEqual([["no_lease_holder", { last_holder: "replica-a" }]]);
  });

  it("raises nothing on the holder, nor without coordination", async () => {
    const lease = new MemoryLeaseStore();
    expect(await run(services({ coordinated: true, leader: true, lease }))).toEqual([]);
    expect(await run(services({ coordinated: false, leader: true, lease }))).toEqual([]);
  });

  it("says the lease could not be read when the store fails, without the store's error", async () => {
    const failing = {
      read: async () => {
        throw new Error("connect ECONNREFUSED postgres://admin:secret@db:5432");
      },
    } as unknown as LeaseStore;
    const alerts = await activeAlerts.run(
      services({ coordinated: true, leader: false, lease: failing }),
      { level: undefined },
      {} as never,
    );
    expect(alerts.alerts.map((a) => a.type)).toEqual(["lease_unknown"]);
    expect(JSON.stringify(alerts)).not.toContain("secret");
  });
});
