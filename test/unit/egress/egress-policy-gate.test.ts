import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryL7PolicyRepository } from "../../../src/adapters/store/memory/memory-l7-policy-repository.js";
import { NodeHasher } from "../../../src/adapters/system/node-hasher.js";
import type { RequestContext } from "../../../src/app/context.js";
import { EgressPolicies } from "../../../src/app/egress/egress-policies.js";
import { EgressPolicyGate } from "../../../src/app/egress/egress-policy-gate.js";
import type { ApprovalHolds, HoldReason } from "../../../src/app/ports/approval-holds.js";
import type { GatedCall } from "../../../src/app/routing/call-gate.js";
import { GatewayError } from "../../../src/domain/errors.js";
import type { DomainEvent } from "../../../src/domain/events.js";
import { SERVER_DEFAULTS } from "../../../src/domain/server/server-spec.js";
import { type FleetHarness, ManualClock, makeFleet } from "../../support/fleet.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const FAKE_TOKEN = `gh${"p"}_${"A1b2C3d4E5f6G7h8I9j0".repeat(2)}`;

/** Records the holds asked for; answers with `outcome` (resolve: approved, an error: denied). */
class RecordingHolds implements ApprovalHolds {
  readonly asked: { tool: string; reason: HoldReason }[] = [];
  outcome: Error | null = null;

  async hold(call: GatedCall, reason: HoldReason): Promise<void> {
    this.asked.push({ tool: call.tool, reason });
    if (this.outcome) throw this.outcome;
  }
}

let harness: FleetHarness;
let clock: ManualClock;
let repository: MemoryL7PolicyRepository;
let policies: EgressPolicies;
let holds: RecordingHolds | undefined;
let gate: EgressPolicyGate;
let egressEvents: DomainEvent[];

const ctx: RequestContext = {
  principal: { id: "alice", type: "api_key", tenant_id: "t1", roles: [] },
  authenticated: true,
  channel: "mcp-http",
};

function call(tool: string, args: Record<string, unknown> = {}): GatedCall {
  const server = harness.fleet.require("svc");
  return { ctx, target: "svc", group: null, server, tool, args, callId: `c-${tool}` };
}

const newPolicies = () =>
  new EgressPolicies({ repository, hasher: new NodeHasher(), clock, logger: silent, maxAgeMs: 2_000 });

beforeEach(async () => {
  clock = new ManualClock();
  harness = makeFleet({ clock });
  harness.fleet.register({
    id: "svc",
    mode: "subprocess",
    command: ["node", "never-started.mjs"],
    env: {},
    source: "config",
    ...SERVER_DEFAULTS,
    // Predefined tools: their schemas are known without starting anything.
    predefined_tools: [
      {
        name: "query",
        inputSchema: {
          type: "object",
          properties: { region: { type: "string", "x-mcp-header": "Region" }, sql: { type: "string" } },
        },
      },
      { name: "send_mail", inputSchema: { type: "object" } },
    ],
  });
  repository = new MemoryL7PolicyRepository();
  policies = newPolicies();
  await policies.load();
  holds = undefined;
  gate = new EgressPolicyGate({ policies, fleet: harness.fleet, bus: harness.bus, approvals: () => holds });
  egressEvents = [];
  harness.bus.subscribe((event) => {
    if (event.type === "EgressPolicyEnforced") egressEvents.push(event);
  });
});
afterEach(async () => {
  await harness.close();
});

async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof GatewayError)) throw new Error(`expected a GatewayError, got ${String(error)}`);
  return error;
}

describe("the L7 egress policy gate", () => {
  it("lets every call through, recording nothing, while the server has no policy", async () => {
    await gate.check(call("anything"));
    expect(egressEvents).toEqual([]);
  });

  it("in Enforce refuses a denied call with EgressPolicyDeniedError and records the verdict", async () => {
    await policies.attach(
      "svc",
      { tools: { allow: ["*"] }, arguments: { secretPatterns: ["github-tokens"] } },
      "admin",
    );
    const error = await refusal(gate.check(call("send_mail", { body: `token ${FAKE_TOKEN}` })));
    expect(error.type).toBe("EgressPolicyDeniedError");
    expect(error.message).toContain("pattern group 'github-tokens'");
    expect(error.details).toMatchObject({
      mcp_server_id: "svc",
      tool_name: "send_mail",
      decided_by: "arguments.secretPatterns:github-tokens",
      secret_groups: ["github-tokens"],
    });
    expect(egressEvents).toHaveLength(1);
    expect(egressEvents[0]).toMatchObject({
      mcp_server_id: "svc",
      tool_name: "send_mail",
      call_id: "c-send_mail",
      requested_by: "alice",
      tenant_id: "t1",
      policy_id: policies.policyOf("svc")!.policyId,
      mode: "Enforce",
      verdict: "deny",
      enforced: true,
      secret_groups: ["github-tokens"],
    });
    // The secret itself is in no refusal and no event.
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(FAKE_TOKEN);
    expect(JSON.stringify(egressEvents)).not.toContain(FAKE_TOKEN);
  });

  it("in Audit records the same verdict and lets the call through", async () => {
    await policies.attach(
      "svc",
      { mode: "Audit", arguments: { secretPatterns: ["github-tokens"] } },
      "admin",
    );
    await gate.check(call("send_mail", { body: FAKE_TOKEN }));
    await gate.check(call("send_mail", { body: "nothing to see" }));
    expect(
      egressEvents.map((e) => e.type === "EgressPolicyEnforced" && [e.verdict, e.enforced, e.decided_by]),
    ).toEqual([
      ["deny", false, "arguments.secretPatterns:github-tokens"],
      ["deny", false, "defaultAction:Deny"],
    ]);
  });

  it("in Audit never holds a call for approval", async () => {
    holds = new RecordingHolds();
    await policies.attach("svc", { mode: "Audit", tools: { requireApproval: ["send_*"] } }, "admin");
    await gate.check(call("send_mail"));
    expect(holds.asked).toEqual([]);
  });

  it("without an approval gate refuses a requireApproval match with EgressPolicyApprovalRequiredError", async () => {
    await policies.attach("svc", { tools: { requireApproval: ["send_*"] } }, "admin");
    const error = await refusal(gate.check(call("send_mail")));
    expect(error.type).toBe("EgressPolicyApprovalRequiredError");
    expect(error.details).toMatchObject({ decided_by: "tools.requireApproval:send_*" });
  });

  it("with an approval gate holds a requireApproval match, naming the rule, and follows the decision", async () => {
    holds = new RecordingHolds();
    await policies.attach("svc", { tools: { requireApproval: ["send_*"] } }, "admin");
    await gate.check(call("send_mail"));
    expect(holds.asked).toEqual([
      { tool: "send_mail", reason: { source: "l7_policy", rule: "tools.requireApproval:send_*" } },
    ]);
    holds.outcome = new GatewayError("ToolAccessDeniedError", "denied by an approver");
    expect((await refusal(gate.check(call("send_mail")))).message).toBe("denied by an approver");
  });

  it("judges header rules on the Mcp-Param headers the tool's schema derives from the arguments", async () => {
    await policies.attach(
      "svc",
      { tools: { allow: ["query"] }, headers: { deny: [{ name: "Mcp-Param-Region", values: ["cn-*"] }] } },
      "admin",
    );
    await gate.check(call("query", { region: "eu-west-1", sql: "select 1" }));
    const error = await refusal(gate.check(call("query", { region: "cn-north-1", sql: "select 1" })));
    expect(error.details).toMatchObject({ decided_by: "headers.deny:Mcp-Param-Region" });
  });

  it("applies a policy changed through another replica once the local copy is older than its maximum age", async () => {
    await gate.check(call("send_mail"));
    const peer = newPolicies();
    await peer.attach("svc", { tools: { deny: ["send_*"] } }, "admin");
    // Within the maximum age the local copy stands; after it the shared store is read again.
    await gate.check(call("send_mail"));
    clock.advance(2_001);
    expect((await refusal(gate.check(call("send_mail")))).type).toBe("EgressPolicyDeniedError");
    await peer.detach("svc", "admin");
    clock.advance(2_001);
    await gate.check(call("send_mail"));
  });

  it("denies every call to a server whose stored policy no longer compiles, rather than dropping it", async () => {
    await repository.set({
      mcp_server_id: "svc",
      policy: { tools: { allow: ["*"] }, arguments: { secretPatterns: ["retired-group"] } } as never,
      policy_id: "sha256:old",
      updated_at: 1,
      updated_by: "admin",
    });
    const reloaded = newPolicies();
    await reloaded.load();
    const strict = new EgressPolicyGate({
      policies: reloaded,
      fleet: harness.fleet,
      bus: harness.bus,
      approvals: () => undefined,
    });
    expect((await refusal(strict.check(call("query", { region: "x" })))).details).toMatchObject({
      decided_by: "defaultAction:Deny",
    });
  });
});
