import { afterEach, describe, expect, it } from "vitest";
import { MemoryApprovalRepository } from "../../../src/adapters/store/memory/memory-approval-repository.js";
import { NodeHasher } from "../../../src/adapters/system/node-hasher.js";
import { NodeIdGenerator } from "../../../src/adapters/system/node-ids.js";
import { ApprovalGate, type ApprovalGateSettings } from "../../../src/app/approvals/approval-gate.js";
import { decideApproval } from "../../../src/app/approvals/decide-approval.js";
import type { RequestContext } from "../../../src/app/context.js";
import { EventBus } from "../../../src/app/event-bus.js";
import type { ManagedServer } from "../../../src/app/fleet/managed-server.js";
import type { ApprovalDelivery, ApprovalNotice } from "../../../src/app/ports/approval-delivery.js";
import type { ApprovalRecord } from "../../../src/app/ports/approval-repository.js";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import type { GatedCall } from "../../../src/app/routing/call-gate.js";
import { ApprovalRefusal } from "../../../src/domain/approval/approval-refusal.js";
import type { GatewayError } from "../../../src/domain/errors.js";
import type { DomainEvent } from "../../../src/domain/events.js";
import { pendingApproval } from "../../support/approvals.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const hasher = new NodeHasher();

/** Wall time the test moves by hand; waits between polls are real (and short). */
class TestClock {
  ms = 1_000_000;
  now = () => this.ms;
  monotonic = () => this.ms;
}

const SETTINGS: ApprovalGateSettings = {
  defaultChannel: "event_stream",
  deliveryRequired: false,
  defaultTimeoutSeconds: 60,
  pollIntervalMs: 5,
  sweepIntervalMs: 60_000,
  orphanGraceMs: 10_000,
};

/** One replica: its own bus and gate over a repository that may be shared with others. */
function replica(
  repository: MemoryApprovalRepository,
  clock: TestClock,
  options: {
    settings?: Partial<ApprovalGateSettings>;
    delivery?: ApprovalDelivery;
    policyTimeout?: number;
  } = {},
) {
  const bus = new EventBus({ clock, ids: new NodeIdGenerator(), logger: silent, instanceId: "r" });
  const events: DomainEvent[] = [];
  bus.subscribe((event) => events.push(event));
  const gate = new ApprovalGate(
    {
      repository,
      bus,
      clock,
      ids: new NodeIdGenerator(),
      hasher,
      logger: silent,
      policiesFor: () => [
        {
          allow_list: [],
          deny_list: [],
          approval_list: ["delete_*"],
          ...(options.policyTimeout && { approval_timeout_seconds: options.policyTimeout }),
        },
      ],
      delivery: options.delivery ?? null,
      callbacks: null,
    },
    { ...SETTINGS, ...options.settings },
  );
  const decide = (approvalId: string, decision: "approve" | "deny", actor = "ann") =>
    decideApproval(
      { repositories: { approvals: repository } as unknown as StoreRepositories, bus, clock },
      { approvalId, decision, reason: "because", actor, visible: () => true },
    );
  return { gate, bus, events, decide };
}

const gatedCall = (args: Record<string, unknown>, signal?: AbortSignal): GatedCall => {
  const ctx: RequestContext = {
    principal: { id: "cal", type: "api_key", tenant_id: "t1", roles: [] },
    authenticated: true,
    channel: "mcp-http",
    ...(signal && { signal }),
  };
  return {
    ctx,
    target: "files",
    group: null,
    server: { id: "files" } as ManagedServer,
    tool: "delete_reports",
    args,
    callId: "call-1",
  };
};

/** The one pending approval, once the hold created it. */
async function pending(repository: MemoryApprovalRepository): Promise<ApprovalRecord> {
  for (let i = 0; i < 500; i++) {
    const [first] = await repository.list({ state: "pending" });
    if (first) return first;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error("no pending approval appeared");
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: GatewayError) => ({ type: error.type, reason: error.details?.reason }),
  );

const gates: ApprovalGate[] = [];
afterEach(async () => {
  await Promise.all(gates.splice(0).map((gate) => gate.close()));
});

describe("the approval gate", () => {
  it("persists a redacted approval with the hash of the exact arguments, then lets the call through once approved", async () => {
    const repository = new MemoryApprovalRepository();
    const { gate, events, decide } = replica(repository, new TestClock(), { policyTimeout: 120 });
    gates.push(gate);
    const args = { path: "/srv/reports", token: "s3cr3t-value" };
    const held = gate.hold(gatedCall(args), { source: "approval_list" });
    const approval = await pending(repository);
    expect(approval).toMatchObject({
      mcp_server_id: "files",
      tool_name: "delete_reports",
      arguments: { path: "/srv/reports", token: "[REDACTED]" },
      arguments_hash: hasher.sha256Hex(hasher.canonicalJson(args)),
      channel: "event_stream",
      requested_by: "cal",
      tenant_id: "t1",
    });
    expect(approval.expires_at - approval.requested_at).toBe(120);
    expect(events[0]).toMatchObject({ type: "ToolApprovalRequested", source: "approval_list" });
    expect(JSON.stringify(events)).not.toContain("s3cr3t-value");
    expect(await decide(approval.approval_id, "approve")).toEqual({
      approval_id: approval.approval_id,
      state: "approved",
    });
    await expect(held).resolves.toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(["ToolApprovalRequested", "ToolApprovalGranted"]);
  });

  it("refuses a denied call and records who denied it", async () => {
    const repository = new MemoryApprovalRepository();
    const { gate, decide } = replica(repository, new TestClock());
    gates.push(gate);
    const held = refusalOf(gate.hold(gatedCall({ path: "/x" }), { source: "approval_list" }));
    const approval = await pending(repository);
    await decide(approval.approval_id, "deny");
    expect(await held).toEqual({ type: "ToolAccessDeniedError", reason: "approval_denied" });
    expect(await repository.get(approval.approval_id)).toMatchObject({ state: "denied", decided_by: "ann" });
  });

  it("expires an unanswered hold at its deadline and refuses the call, and a late approve is then told it expired", async () => {
    const repository = new MemoryApprovalRepository();
    const clock = new TestClock();
    const { gate, events, decide } = replica(repository, clock);
    gates.push(gate);
    const held = refusalOf(gate.hold(gatedCall({ path: "/x" }), { source: "approval_list" }));
    const approval = await pending(repository);
    clock.ms = approval.expires_at * 1000;
    expect(await held).toEqual({ type: "ToolAccessDeniedError", reason: "approval_expired" });
    expect(events.at(-1)).toMatchObject({ type: "ToolApprovalExpired", expired_at: approval.expires_at });
    const late = await decide(approval.approval_id, "approve").catch((error: ApprovalRefusal) => error);
    expect(late).toBeInstanceOf(ApprovalRefusal);
    expect((late as ApprovalRefusal).status).toBe(409);
    expect((late as ApprovalRefusal).body).toEqual({ error: "Approval expired" });
  });

  it("at the exact deadline, lets neither the approve nor the call win: 409 for the approver, a refusal for the call", async () => {
    const repository = new MemoryApprovalRepository();
    const clock = new TestClock();
    const { gate, events, decide } = replica(repository, clock);
    gates.push(gate);
    const held = refusalOf(gate.hold(gatedCall({ path: "/x" }), { source: "approval_list" }));
    const approval = await pending(repository);
    clock.ms = approval.expires_at * 1000;
    const answer = await decide(approval.approval_id, "approve").catch((error: ApprovalRefusal) => error);
    expect((answer as ApprovalRefusal).status).toBe(409);
    const outcome = await held;
    expect(outcome?.type).toBe("ToolAccessDeniedError");
    const final = await repository.get(approval.approval_id);
    // Whichever came first: the approve (cancelled, naming the approver) or the expiry.
    if (final?.state === "cancelled") {
      expect((answer as ApprovalRefusal).body).toEqual({ error: "Approval expired", state: "cancelled" });
      expect(events.find((e) => e.type === "ToolApprovalCancelled")).toMatchObject({ attempted_by: "ann" });
      expect(outcome?.reason).toBe("approval_cancelled");
    } else {
      expect(final?.state).toBe("expired");
      expect(outcome?.reason).toBe("approval_expired");
    }
  });

  it("stops waiting at the call's own deadline, leaving the approval pending: an approve then cancels it (409)", async () => {
    const repository = new MemoryApprovalRepository();
    const clock = new TestClock();
    const { gate, events, decide } = replica(repository, clock);
    gates.push(gate);
    // The call times out 5 s after it started; the hold (60 s) would last longer.
    const call = { ...gatedCall({ path: "/x" }), deadline: clock.ms + 5_000 };
    const held = refusalOf(gate.hold(call, { source: "approval_list" }));
    const approval = await pending(repository);
    expect(approval.call_deadline_at).toBe(call.deadline / 1000);
    clock.ms = call.deadline;
    expect(await held).toEqual({ type: "ToolAccessDeniedError", reason: "approval_call_timeout" });
    expect((await repository.get(approval.approval_id))?.state).toBe("pending");
    const late = await decide(approval.approval_id, "approve").catch((error: ApprovalRefusal) => error);
    expect((late as ApprovalRefusal).status).toBe(409);
    expect((late as ApprovalRefusal).body).toEqual({ error: "Approval expired", state: "cancelled" });
    expect(events.at(-1)).toMatchObject({ type: "ToolApprovalCancelled", attempted_by: "ann" });
  });

  it("still records a denial after the call's deadline, and expires an unanswered one at expires_at", async () => {
    const repository = new MemoryApprovalRepository();
    const clock = new TestClock();
    const { gate, decide } = replica(repository, clock, { policyTimeout: 1 });
    gates.push(gate);
    const first = refusalOf(
      gate.hold({ ...gatedCall({ n: 1 }), deadline: clock.ms + 100 }, { source: "approval_list" }),
    );
    const denied = await pending(repository);
    clock.ms += 100;
    expect(await first).toMatchObject({ reason: "approval_call_timeout" });
    expect(await decide(denied.approval_id, "deny")).toEqual({
      approval_id: denied.approval_id,
      state: "denied",
    });

    const second = refusalOf(
      gate.hold({ ...gatedCall({ n: 2 }), deadline: clock.ms + 100 }, { source: "approval_list" }),
    );
    const unanswered = await pending(repository);
    clock.ms += 100;
    expect(await second).toMatchObject({ reason: "approval_call_timeout" });
    // expires_at is 1 s after the request: the gate's timer expires it then (real time passes too).
    clock.ms = unanswered.expires_at * 1000;
    for (let i = 0; i < 200 && (await repository.get(unanswered.approval_id))?.state === "pending"; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await repository.get(unanswered.approval_id))?.state).toBe("expired");
  });

  it("waits for the approval alone when the call's deadline comes after its expiry", async () => {
    const repository = new MemoryApprovalRepository();
    const clock = new TestClock();
    const { gate } = replica(repository, clock);
    gates.push(gate);
    const held = refusalOf(
      gate.hold({ ...gatedCall({ path: "/x" }), deadline: clock.ms + 600_000 }, { source: "approval_list" }),
    );
    const approval = await pending(repository);
    expect(approval.call_deadline_at).toBeNull();
    clock.ms = approval.expires_at * 1000;
    expect(await held).toEqual({ type: "ToolAccessDeniedError", reason: "approval_expired" });
  });

  it("runs an approved call only with the arguments that were approved", async () => {
    const repository = new MemoryApprovalRepository();
    const { gate, decide } = replica(repository, new TestClock());
    gates.push(gate);
    const args: Record<string, unknown> = { path: "/srv/reports" };
    const held = refusalOf(gate.hold(gatedCall(args), { source: "approval_list" }));
    const approval = await pending(repository);
    args.path = "/";
    await decide(approval.approval_id, "approve");
    expect(await held).toEqual({ type: "ToolAccessDeniedError", reason: "approval_arguments_changed" });
  });

  it("learns a decision made on another replica from the shared repository", async () => {
    const repository = new MemoryApprovalRepository();
    const clock = new TestClock();
    const holder = replica(repository, clock);
    const other = replica(repository, clock);
    gates.push(holder.gate, other.gate);
    const held = holder.gate.hold(gatedCall({ path: "/x" }), { source: "approval_list" });
    const approval = await pending(repository);
    await other.decide(approval.approval_id, "approve");
    // The holder's bus never saw the decision: only its reads of the repository can let it through.
    expect(holder.events.map((e) => e.type)).toEqual(["ToolApprovalRequested"]);
    await expect(held).resolves.toBeUndefined();
  });

  it("lets exactly one of two racing approvers decide", async () => {
    const repository = new MemoryApprovalRepository();
    const clock = new TestClock();
    const a = replica(repository, clock);
    const b = replica(repository, clock);
    gates.push(a.gate, b.gate);
    const held = refusalOf(a.gate.hold(gatedCall({ path: "/x" }), { source: "approval_list" }));
    const approval = await pending(repository);
    const answers = await Promise.all([
      a.decide(approval.approval_id, "approve", "ann").catch((error: ApprovalRefusal) => error),
      b.decide(approval.approval_id, "deny", "bob").catch((error: ApprovalRefusal) => error),
    ]);
    const won = answers.filter((answer) => !(answer instanceof ApprovalRefusal));
    const lost = answers.filter((answer) => answer instanceof ApprovalRefusal) as ApprovalRefusal[];
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const state = (won[0] as { state: string }).state;
    expect(lost[0]?.body).toEqual({ error: "Approval already resolved", state });
    expect(await held).toEqual(
      state === "approved" ? null : { type: "ToolAccessDeniedError", reason: "approval_denied" },
    );
  });

  it("expires the hold of a call that stopped waiting, so it can no longer be approved", async () => {
    const repository = new MemoryApprovalRepository();
    const { gate, decide } = replica(repository, new TestClock());
    gates.push(gate);
    const abort = new AbortController();
    const held = refusalOf(gate.hold(gatedCall({ path: "/x" }, abort.signal), { source: "approval_list" }));
    const approval = await pending(repository);
    abort.abort();
    expect(await held).toEqual({ type: "ToolAccessDeniedError", reason: "approval_cancelled" });
    expect(await repository.get(approval.approval_id)).toMatchObject({ state: "expired", decided_by: null });
    await expect(decide(approval.approval_id, "approve")).rejects.toMatchObject({ status: 409 });
  });

  describe("delivery", () => {
    const failingDelivery = (): ApprovalDelivery & { notices: ApprovalNotice[] } => {
      const notices: ApprovalNotice[] = [];
      return {
        notices,
        serves: (channel) => channel === "webhook",
        async enqueue(notice) {
          notices.push(notice);
          throw new Error("queue is down");
        },
        async close() {},
      };
    };

    it("with delivery.required, denies a request that cannot be queued at once (fail closed)", async () => {
      const repository = new MemoryApprovalRepository();
      const delivery = failingDelivery();
      const { gate, events } = replica(repository, new TestClock(), {
        settings: { defaultChannel: "webhook", deliveryRequired: true },
        delivery,
      });
      gates.push(gate);
      const outcome = await refusalOf(gate.hold(gatedCall({ path: "/x" }), { source: "l7_policy" }));
      expect(outcome).toEqual({ type: "ToolAccessDeniedError", reason: "approval_undeliverable" });
      expect(delivery.notices).toHaveLength(1);
      const [approval] = await repository.list({ state: "denied" });
      expect(approval).toMatchObject({ decided_by: null, channel: "webhook" });
      expect(approval?.reason).toMatch(/^delivery_failed: could not be queued/);
      expect(events.at(-1)).toMatchObject({ type: "ToolApprovalDenied", decided_by: null });
    });

    it("without delivery.required, keeps an undeliverable request pending and decidable", async () => {
      const repository = new MemoryApprovalRepository();
      const { gate, decide } = replica(repository, new TestClock(), {
        settings: { defaultChannel: "teams" },
      });
      gates.push(gate);
      const held = gate.hold(gatedCall({ path: "/x" }), { source: "l7_policy" });
      const approval = await pending(repository);
      expect(approval.channel).toBe("teams");
      await decide(approval.approval_id, "approve");
      await expect(held).resolves.toBeUndefined();
    });

    it("denies a pending request whose delivery was given up, when delivery is required", async () => {
      const repository = new MemoryApprovalRepository();
      const accepting: ApprovalDelivery = {
        serves: () => true,
        async enqueue() {},
        async close() {},
      };
      const { gate } = replica(repository, new TestClock(), {
        settings: { defaultChannel: "webhook", deliveryRequired: true },
        delivery: accepting,
      });
      gates.push(gate);
      const held = refusalOf(gate.hold(gatedCall({ path: "/x" }), { source: "approval_list" }));
      const approval = await pending(repository);
      await gate.deliveryGivenUp({ approval, channel: "webhook" }, "HTTP 500");
      expect(await held).toEqual({ type: "ToolAccessDeniedError", reason: "approval_undeliverable" });
    });
  });

  it("expires an orphaned approval (its holder died) only after the grace that follows its deadline", async () => {
    const repository = new MemoryApprovalRepository();
    const clock = new TestClock();
    const { gate, events } = replica(repository, clock);
    gates.push(gate);
    await repository.create(
      pendingApproval({
        approval_id: "orphan",
        mcp_server_id: "files",
        tool_name: "delete_reports",
        requested_at: clock.ms / 1000 - 100,
        expires_at: clock.ms / 1000 - 5,
      }),
    );
    await gate.sweep();
    expect((await repository.get("orphan"))?.state).toBe("pending");
    clock.ms += 5_000;
    await gate.sweep();
    expect((await repository.get("orphan"))?.state).toBe("expired");
    expect(events.map((e) => e.type)).toEqual(["ToolApprovalExpired"]);
  });

  it("releases every held call when it closes, expiring their approvals", async () => {
    const repository = new MemoryApprovalRepository();
    const { gate } = replica(repository, new TestClock());
    const held = refusalOf(gate.hold(gatedCall({ path: "/x" }), { source: "approval_list" }));
    const approval = await pending(repository);
    await gate.close();
    expect(await held).toEqual({ type: "ToolAccessDeniedError", reason: "approval_cancelled" });
    expect((await repository.get(approval.approval_id))?.state).toBe("expired");
    expect(await refusalOf(gate.hold(gatedCall({}), { source: "approval_list" }))).toEqual({
      type: "ToolAccessDeniedError",
      reason: "approval_unavailable",
    });
  });
});
