import { afterEach, beforeEach, expect, it } from "vitest";
import type { ApprovalRecord } from "../../../src/app/ports/approval-repository.js";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import { BACKENDS, describeNow, describePostgres, openRepositories } from "../../support/backends.js";

const approval = (approval_id: string, extra: Partial<ApprovalRecord> = {}): ApprovalRecord => ({
  approval_id,
  mcp_server_id: "math",
  tool_name: "delete_everything",
  arguments: { path: "/tmp", token: "[REDACTED]" },
  arguments_hash: "a".repeat(64),
  state: "pending",
  channel: "rest",
  requested_at: 1_000,
  expires_at: 1_300,
  call_deadline_at: null,
  requested_by: "alice",
  tenant_id: null,
  decided_by: null,
  decided_at: null,
  reason: null,
  ...extra,
});

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(`ApprovalRepository on ${backend}`, () => {
    let repos: StoreRepositories;
    let close: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      ({ repos, close } = await openRepositories(backend));
    });
    afterEach(async () => {
      await close?.();
      close = undefined;
    });

    it("returns a created approval whole", async () => {
      await repos.approvals.create(approval("ap1", { tenant_id: "t1" }));
      expect(await repos.approvals.get("ap1")).toEqual(approval("ap1", { tenant_id: "t1" }));
      expect(await repos.approvals.get("nope")).toBeUndefined();
    });

    it("rejects a second approval with the same id and keeps the first", async () => {
      await repos.approvals.create(approval("ap1"));
      await expect(repos.approvals.create(approval("ap1", { tool_name: "other" }))).rejects.toThrow();
      expect((await repos.approvals.get("ap1"))?.tool_name).toBe("delete_everything");
    });

    it("lists by state, provider and tenant, oldest request first", async () => {
      await repos.approvals.create(
        approval("c", { requested_at: 30, mcp_server_id: "files", tenant_id: "t1" }),
      );
      await repos.approvals.create(approval("a", { requested_at: 10 }));
      await repos.approvals.create(approval("b", { requested_at: 20, state: "approved" }));
      await repos.approvals.create(approval("d", { requested_at: 10, tenant_id: "t1" }));
      const ids = async (f?: Parameters<StoreRepositories["approvals"]["list"]>[0]) =>
        (await repos.approvals.list(f)).map((a) => a.approval_id);
      expect(await ids()).toEqual(["a", "d", "b", "c"]);
      expect(await ids({ state: "pending" })).toEqual(["a", "d", "c"]);
      expect(await ids({ provider_id: "files" })).toEqual(["c"]);
      expect(await ids({ tenant_id: "t1", state: "pending" })).toEqual(["d", "c"]);
      expect(await ids({ state: "cancelled" })).toEqual([]);
    });

    it("decides a pending approval and records who, when and why", async () => {
      await repos.approvals.create(approval("ap1"));
      const result = await repos.approvals.decide("ap1", "pending", "denied", {
        decided_by: "bob",
        decided_at: 1_100.5,
        reason: "too risky",
      });
      const expected = approval("ap1", {
        state: "denied",
        decided_by: "bob",
        decided_at: 1_100.5,
        reason: "too risky",
      });
      expect(result).toEqual({ decided: true, approval: expected });
      expect(await repos.approvals.get("ap1")).toEqual(expected);
    });

    it("refuses a decision when the state is no longer the expected one, and returns the current approval", async () => {
      await repos.approvals.create(approval("ap1"));
      await repos.approvals.decide("ap1", "pending", "approved", {
        decided_by: "bob",
        decided_at: 1,
        reason: null,
      });
      const second = await repos.approvals.decide("ap1", "pending", "denied", {
        decided_by: "carol",
        decided_at: 2,
        reason: null,
      });
      expect(second.decided).toBe(false);
      expect(second.decided ? undefined : second.current).toMatchObject({
        state: "approved",
        decided_by: "bob",
      });
      expect(
        await repos.approvals.decide("ghost", "pending", "approved", {
          decided_by: "x",
          decided_at: 1,
          reason: null,
        }),
      ).toEqual({ decided: false, current: undefined });
    });

    it("lets exactly one of two concurrent deciders win", async () => {
      await repos.approvals.create(approval("ap1"));
      const results = await Promise.all([
        repos.approvals.decide("ap1", "pending", "approved", {
          decided_by: "bob",
          decided_at: 1,
          reason: null,
        }),
        repos.approvals.decide("ap1", "pending", "denied", {
          decided_by: "carol",
          decided_at: 1,
          reason: null,
        }),
      ]);
      expect(results.filter((r) => r.decided)).toHaveLength(1);
      const winner = results.find((r) => r.decided);
      expect((await repos.approvals.get("ap1"))?.state).toBe(
        winner?.decided ? winner.approval.state : "none",
      );
    });

    it("expires exactly the pending approvals whose deadline has passed", async () => {
      await repos.approvals.create(approval("due", { expires_at: 100 }));
      await repos.approvals.create(approval("at-deadline", { expires_at: 200 }));
      await repos.approvals.create(approval("later", { expires_at: 300 }));
      await repos.approvals.create(approval("decided", { expires_at: 100, state: "approved" }));
      const expired = await repos.approvals.expirePending(200);
      expect(expired.map((a) => a.approval_id).sort()).toEqual(["at-deadline", "due"]);
      expect(expired[0]).toMatchObject({ state: "expired", decided_at: 200, decided_by: null });
      expect((await repos.approvals.get("later"))?.state).toBe("pending");
      expect((await repos.approvals.get("decided"))?.state).toBe("approved");
      expect(await repos.approvals.expirePending(200)).toEqual([]);
    });

    it("reports each expired approval to one sweeper only when sweeps run at once", async () => {
      for (let i = 0; i < 20; i++) await repos.approvals.create(approval(`ap${i}`, { expires_at: 100 }));
      const sweeps = await Promise.all([
        repos.approvals.expirePending(150),
        repos.approvals.expirePending(150),
        repos.approvals.expirePending(150),
      ]);
      const ids = sweeps.flat().map((a) => a.approval_id);
      expect(ids).toHaveLength(20);
      expect(new Set(ids).size).toBe(20);
    });
  });
}
