import { describe, expect, it } from "vitest";
import type { Leadership } from "../../../src/app/coordination/leadership.js";
import type { LeaseStore, LeaseView } from "../../../src/app/ports/lease-store.js";
import { requireLeader } from "../../../src/app/replication/leader-only.js";
import { GatewayError } from "../../../src/domain/errors.js";

const standing = (isLeader: boolean): Leadership => ({
  holder: "replica-b",
  isLeader,
  term: () => undefined,
  onChange: () => () => undefined,
});
const leaseStore = (view: LeaseView | undefined): LeaseStore =>
  ({ read: async () => view }) as unknown as LeaseStore;
const what = { mcp_server_id: "math", action: "start" };

async function refusal(promise: Promise<void>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof GatewayError)) throw new Error(`expected a GatewayError, got ${String(error)}`);
  return error;
}

describe("requireLeader", () => {
  it("lets every command through without coordination, and on the leader", async () => {
    const store = leaseStore({ name: "m", holder: "replica-a", generation: 3, expires_in: 10 });
    await expect(requireLeader(undefined, { store, name: "m" }, what)).resolves.toBeUndefined();
    await expect(requireLeader(standing(true), { store, name: "m" }, what)).resolves.toBeUndefined();
  });

  it("answers a follower with McpServerNotHereError (409) naming the live leader", async () => {
    const store = leaseStore({ name: "m", holder: "replica-a", generation: 3, expires_in: 10 });
    const error = await refusal(requireLeader(standing(false), { store, name: "m" }, what));
    expect([error.type, error.status, error.retryable]).toEqual(["McpServerNotHereError", 409, true]);
    expect(error.details).toEqual({
      mcp_server_id: "math",
      action: "start",
      leader_instance_id: "replica-a",
    });
  });

  it("names no leader when the lease is expired, absent, held by this follower's stale term, or unreadable", async () => {
    const views: (LeaseView | undefined)[] = [
      { name: "m", holder: "replica-a", generation: 3, expires_in: 0 },
      undefined,
      { name: "m", holder: "replica-b", generation: 4, expires_in: 5 },
    ];
    for (const view of views) {
      const error = await refusal(
        requireLeader(standing(false), { store: leaseStore(view), name: "m" }, what),
      );
      expect(error.details?.leader_instance_id).toBeNull();
    }
    const failing = { read: async () => Promise.reject(new Error("down")) } as unknown as LeaseStore;
    const error = await refusal(requireLeader(standing(false), { store: failing, name: "m" }, what));
    expect([error.type, error.details?.leader_instance_id]).toEqual(["McpServerNotHereError", null]);
  });
});
