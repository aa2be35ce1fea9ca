import { afterAll, describe, expect, it } from "vitest";
import { MemoryApprovalRepository } from "../../../src/adapters/store/memory/memory-approval-repository.js";
import { NodeHasher } from "../../../src/adapters/system/node-hasher.js";
import { NodeIdGenerator } from "../../../src/adapters/system/node-ids.js";
import { SystemClock } from "../../../src/adapters/system/system-clock.js";
import { ApprovalGate } from "../../../src/app/approvals/approval-gate.js";
import { decideApproval } from "../../../src/app/approvals/decide-approval.js";
import { UiResourceGate } from "../../../src/app/approvals/ui-resource-gate.js";
import type { RequestContext } from "../../../src/app/context.js";
import { EventBus } from "../../../src/app/event-bus.js";
import type { Fleet } from "../../../src/app/fleet/fleet.js";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import { uiResourceAllowed } from "../../../src/domain/approval/ui-allowlist.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const fleet = { require: (id: string) => ({ id }) } as unknown as Fleet;
const ctx = (tenant: string | null): RequestContext => ({
  principal: { id: "cal", type: "jwt", tenant_id: tenant, roles: [] },
  authenticated: true,
  channel: "mcp-http",
});

describe("ui_resources allowlist entries", () => {
  it.each([
    ["ui://dash/main", ["ui://dash/main"], true],
    ["ui://dash/main2", ["ui://dash/main"], false],
    ["ui://dash/a/b", ["ui://dash/"], true],
    ["ui://dashboard", ["ui://dash/"], false],
    ["ui://dashboard", ["ui://dash*"], true],
    ["ui://other", [], false],
  ] as const)("%s against %j -> %s", (uri, allowlist, allowed) => {
    expect(uiResourceAllowed(uri, allowlist)).toBe(allowed);
  });
});

describe("the UI resource gate", () => {
  const clock = new SystemClock();
  const repository = new MemoryApprovalRepository();
  const bus = new EventBus({ clock, ids: new NodeIdGenerator(), logger: silent, instanceId: "r" });
  const holds = new ApprovalGate(
    {
      repository,
      bus,
      clock,
      ids: new NodeIdGenerator(),
      hasher: new NodeHasher(),
      logger: silent,
      policiesFor: () => [],
      delivery: null,
      callbacks: null,
    },
    {
      defaultChannel: "event_stream",
      deliveryRequired: false,
      defaultTimeoutSeconds: 60,
      pollIntervalMs: 5,
      sweepIntervalMs: 60_000,
      orphanGraceMs: 10_000,
    },
  );
  const tenants = { t1: { allowlist: ["ui://dash/"], csp: "default-src 'none'" } };
  const gate = new UiResourceGate({ tenants, holds, fleet, newCallId: () => "c1" });
  afterAll(() => holds.close());

  it("lists only allowed UI resources, and leaves other schemes alone", () => {
    const listing = [{ uri: "ui://dash/a" }, { uri: "ui://secret/b" }, { uri: "file:///x" }];
    expect(gate.filterListing(listing, "t1")).toEqual([{ uri: "ui://dash/a" }, { uri: "file:///x" }]);
    expect(gate.filterListing(listing, "t2")).toEqual([{ uri: "file:///x" }]);
    expect(gate.filterListing(listing, null)).toEqual([{ uri: "file:///x" }]);
  });

  it("answers a read outside the allowlist as absent, without asking anyone", async () => {
    expect(await gate.beforeRead(ctx("t1"), "srv", "ui://secret/b")).toEqual({ relay: false });
    expect(await gate.beforeRead(ctx(null), "srv", "ui://dash/a")).toEqual({ relay: false });
    expect(await repository.list()).toEqual([]);
  });

  it("holds an allowed read for consent, and relays it with the tenant's CSP once approved", async () => {
    const read = gate.beforeRead(ctx("t1"), "srv", "ui://dash/a");
    let approval = (await repository.list({ state: "pending" }))[0];
    for (let i = 0; !approval && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      approval = (await repository.list({ state: "pending" }))[0];
    }
    expect(approval).toMatchObject({
      tool_name: "resources/read",
      arguments: { uri: "ui://dash/a" },
      tenant_id: "t1",
    });
    await decideApproval(
      { repositories: { approvals: repository } as unknown as StoreRepositories, bus, clock },
      {
        approvalId: approval?.approval_id ?? "",
        decision: "approve",
        reason: null,
        actor: "ann",
        visible: () => true,
      },
    );
    expect(await read).toEqual({ relay: true, csp: "default-src 'none'" });
  });

  it("refuses every allowed read when no approval gate exists: consent cannot be given", async () => {
    const ungated = new UiResourceGate({ tenants, holds: null, fleet, newCallId: () => "c1" });
    await expect(ungated.beforeRead(ctx("t1"), "srv", "ui://dash/a")).rejects.toMatchObject({
      type: "ToolAccessDeniedError",
    });
    expect(await ungated.beforeRead(ctx("t1"), "srv", "file:///x")).toEqual({ relay: true, csp: null });
  });
});
