import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DomainEvent } from "../../src/domain/events.js";
import { createApiKey } from "../support/api-keys.js";
import { pendingApproval } from "../support/approvals.js";
import { CONTROLLABLE, startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import { callJson } from "../support/mcp-client.js";

const server = (id: string, timeout: number) => `
  ${id}:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]
    tools: {approval_list: [echo], approval_timeout_seconds: ${timeout}}`;

let gw: TestGateway;
let base: string;
let caller: Client;
const keys: Record<string, string> = {};
const events: DomainEvent[] = [];

const keyFor = (principal: string, tenant: string | null = null) => createApiKey(gw, principal, { tenant });

const as = (who: string) => ({ "x-api-key": keys[who] as string });

const list = async (who: string, query = "") => {
  const response = await gw.app.inject({ method: "GET", url: `/api/approvals${query}`, headers: as(who) });
  return { status: response.statusCode, body: response.json() };
};

const resolve = async (who: string, id: string, body: unknown) => {
  const response = await gw.app.inject({
    method: "POST",
    url: `/api/approvals/${id}/resolve`,
    headers: { ...as(who), "content-type": "application/json" },
    payload: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.statusCode, body: response.json() };
};

/** Calls a tool through gateway_call as the tenant-t1 caller; resolves with the call's result entry. */
const call = async (target: string, args: Record<string, unknown>) => {
  const { json } = await callJson(caller, "gateway_call", {
    calls: [{ mcp_server: target, tool: "echo", arguments: args }],
  });
  return json.results[0];
};

/** The next pending approval of `server` not seen before. */
const seen = new Set<string>();
async function nextPending(serverId: string) {
  let found: Record<string, unknown> | undefined;
  await waitFor(async () => {
    const { body } = await list("alice", `?provider_id=${serverId}`);
    found = (body as Record<string, unknown>[]).find((a) => !seen.has(a.approval_id as string));
    return found !== undefined;
  });
  seen.add(found?.approval_id as string);
  return found as Record<string, unknown>;
}

/** A pending approval whose holder is gone (a replica that died holding it), past its deadline. */
/**
 * A pending approval no replica holds: its call stopped waiting a second ago, and the hold expires
 * in a minute; with `pastExpiry`, the hold's own deadline has passed too (the sweep has not run).
 */
async function orphan(id: string, { pastExpiry = false } = {}): Promise<void> {
  const now = Date.now() / 1000;
  await gw.gateway.services.repositories.approvals.create(
    pendingApproval({
      approval_id: id,
      mcp_server_id: "held",
      tool_name: "echo",
      arguments: { message: "x" },
      requested_at: now - 61,
      expires_at: pastExpiry ? now - 1 : now + 60,
      call_deadline_at: pastExpiry ? null : now - 1,
      tenant_id: "t1",
    }),
  );
}

beforeAll(async () => {
  gw = await startTestGateway(`
auth:
  enabled: true
  rate_limit: {max_attempts: 100000}
  role_assignments:
    - {principal: alice, role: admin}
    - {principal: ann, role: provider-admin, scope: "tenant:t1"}
    - {principal: tom, role: provider-admin, scope: "tenant:t2"}
    - {principal: cal, role: developer}
    - {principal: bob, role: viewer}
rate_limit: {rps: 1000, burst: 1000}
mcp_servers:${server("held", 60)}${server("brief", 1)}
`);
  base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  keys.alice = await keyFor("alice", null);
  keys.ann = await keyFor("ann", "t1");
  keys.tom = await keyFor("tom", "t2");
  keys.cal = await keyFor("cal", "t1");
  keys.bob = await keyFor("bob", null);
  gw.gateway.services.bus.subscribe((event) => events.push(event));
  caller = new Client({ name: "approvals-tests", version: "1.0.0" });
  await caller.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", base), { requestInit: { headers: as("cal") } }),
  );
});
afterAll(async () => {
  await caller?.close();
  await gw?.close();
});

describe("a call of a tool on an approval list", () => {
  it("is held, shown redacted to approvers, and completes once approved", async () => {
    const outcome = call("held", { message: "ship it", token: "t0p-s3cret-value" });
    const approval = await nextPending("held");
    const { hasher } = gw.gateway.services;
    expect(approval).toMatchObject({
      mcp_server_id: "held",
      tool_name: "echo",
      arguments: { message: "ship it", token: "[REDACTED]" },
      arguments_hash: hasher.sha256Hex(
        hasher.canonicalJson({ message: "ship it", token: "t0p-s3cret-value" }),
      ),
      state: "pending",
      channel: "event_stream",
      requested_by: "cal",
      tenant_id: "t1",
      decided_by: null,
    });
    expect(approval.expires_in_seconds).toBeGreaterThan(0);
    expect(approval.expires_in_seconds).toBeLessThanOrEqual(60);
    const one = await gw.app.inject({
      method: "GET",
      url: `/api/approvals/${approval.approval_id}`,
      headers: as("ann"),
    });
    expect(one.json()).toMatchObject({ approval_id: approval.approval_id, state: "pending" });

    expect(
      await resolve("ann", approval.approval_id as string, { decision: "approve", reason: "looks fine" }),
    ).toEqual({
      status: 200,
      body: { approval_id: approval.approval_id, state: "approved" },
    });
    const result = await outcome;
    expect(result.success).toBe(true);
    expect(result.result.content[0].text).toBe("ship it");
    const granted = events.find((e) => e.type === "ToolApprovalGranted");
    expect(granted).toMatchObject({ approval_id: approval.approval_id, decided_by: "ann" });
    // Nothing the gateway published carries the secret argument.
    expect(JSON.stringify(events)).not.toContain("t0p-s3cret-value");
    const approved = await list("alice", "?state=approved");
    expect(approved.body.map((a: { approval_id: string }) => a.approval_id)).toContain(approval.approval_id);
  });

  it("is refused when an approver denies it", async () => {
    const outcome = call("held", { message: "drop tables" });
    const approval = await nextPending("held");
    expect(
      (await resolve("alice", approval.approval_id as string, { decision: "deny", reason: "no" })).body,
    ).toEqual({
      approval_id: approval.approval_id,
      state: "denied",
    });
    expect(await outcome).toMatchObject({ success: false, error_type: "ToolAccessDeniedError" });
    const stored = await gw.gateway.services.repositories.approvals.get(approval.approval_id as string);
    expect(stored).toMatchObject({ state: "denied", decided_by: "alice", reason: "no" });
  });

  it("is refused at the deadline when nobody decides, and a late approve is told it expired", async () => {
    const outcome = call("brief", { message: "quick" });
    const approval = await nextPending("brief");
    const result = await outcome;
    expect(result).toMatchObject({ success: false, error_type: "ToolAccessDeniedError" });
    expect(result.error).toContain("no approver decided before the deadline");
    const stored = await gw.gateway.services.repositories.approvals.get(approval.approval_id as string);
    expect(stored?.state).toBe("expired");
    expect(stored?.decided_at).toBeGreaterThanOrEqual(stored?.expires_at ?? Number.POSITIVE_INFINITY);
    expect(await resolve("ann", approval.approval_id as string, { decision: "approve" })).toEqual({
      status: 409,
      body: { error: "Approval expired" },
    });
  });

  it("lets exactly one of two racing approvers decide; the other gets 409 with the state", async () => {
    const outcome = call("held", { message: "race" });
    const approval = await nextPending("held");
    const id = approval.approval_id as string;
    const answers = await Promise.all([
      resolve("alice", id, { decision: "approve" }),
      resolve("ann", id, { decision: "deny" }),
    ]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 409]);
    const winner = answers.find((a) => a.status === 200)?.body.state;
    expect(answers.find((a) => a.status === 409)?.body).toEqual({
      error: "Approval already resolved",
      state: winner,
    });
    expect((await outcome).success).toBe(winner === "approved");
  });

  it("holds a call with other arguments again: an approval covers only the arguments it was given for", async () => {
    const first = call("held", { message: "one" });
    const approval = await nextPending("held");
    await resolve("alice", approval.approval_id as string, { decision: "approve" });
    expect((await first).success).toBe(true);
    const second = call("held", { message: "two" });
    const again = await nextPending("held");
    expect(again.approval_id).not.toBe(approval.approval_id);
    expect(again.arguments_hash).not.toBe(approval.arguments_hash);
    await resolve("alice", again.approval_id as string, { decision: "deny" });
    expect((await second).success).toBe(false);
  });
});

describe("the batch-deadline race", () => {
  it("ends a held call at its own timeout with the approval still pending; an approve then cancels it", async () => {
    const started = Date.now();
    const { json } = await callJson(caller, "gateway_call", {
      calls: [{ mcp_server: "held", tool: "echo", arguments: { message: "in time?" } }],
      timeout: 1,
    });
    const [result] = json.results;
    expect(result).toMatchObject({ success: false, error_type: "ToolAccessDeniedError" });
    expect(result.error).toContain("timeout passed before a decision");
    // One second, not the hold's 60.
    expect(Date.now() - started).toBeLessThan(30_000);
    const approval = await nextPending("held");
    expect(approval.state).toBe("pending");
    expect(await resolve("ann", approval.approval_id as string, { decision: "approve" })).toEqual({
      status: 409,
      body: { error: "Approval expired", state: "cancelled" },
    });
    expect(
      events.find((e) => e.type === "ToolApprovalCancelled" && e.approval_id === approval.approval_id),
    ).toMatchObject({
      attempted_by: "ann",
    });
  });

  it("cancels an approve that comes after the held call's deadline: 409, and an event naming the approver", async () => {
    await orphan("late-approve");
    expect(await resolve("ann", "late-approve", { decision: "approve" })).toEqual({
      status: 409,
      body: { error: "Approval expired", state: "cancelled" },
    });
    expect(
      events.find((e) => e.type === "ToolApprovalCancelled" && e.approval_id === "late-approve"),
    ).toMatchObject({
      approval_id: "late-approve",
      attempted_by: "ann",
      tenant_id: "t1",
    });
    expect(await resolve("ann", "late-approve", { decision: "deny" })).toEqual({
      status: 409,
      body: { error: "Approval already resolved", state: "cancelled" },
    });
  });

  it("still records a denial that comes after the deadline", async () => {
    await orphan("late-deny");
    expect(await resolve("ann", "late-deny", { decision: "deny" })).toEqual({
      status: 200,
      body: { approval_id: "late-deny", state: "denied" },
    });
  });

  it("expires a hold past its own deadline on the first decision, before any sweep: 409 Approval expired", async () => {
    for (const [id, decision] of [
      ["expired-approve", "approve"],
      ["expired-deny", "deny"],
    ] as const) {
      await orphan(id, { pastExpiry: true });
      expect(await resolve("ann", id, { decision })).toEqual({
        status: 409,
        body: { error: "Approval expired" },
      });
      expect(events.find((e) => e.type === "ToolApprovalExpired" && e.approval_id === id)).toMatchObject({
        approval_id: id,
        reason: "the hold expired before a decision",
      });
      expect((await gw.gateway.services.repositories.approvals.get(id))?.state).toBe("expired");
      expect(await resolve("ann", id, { decision })).toEqual({
        status: 409,
        body: { error: "Approval expired" },
      });
    }
  });
});

describe("the approval routes", () => {
  it("answer another tenant's approval as unknown", async () => {
    await orphan("t1-only");
    const get = (who: string) =>
      gw.app.inject({ method: "GET", url: "/api/approvals/t1-only", headers: as(who) });
    expect((await get("ann")).statusCode).toBe(200);
    const other = await get("tom");
    expect([other.statusCode, other.json()]).toEqual([404, { error: "Approval not found" }]);
    expect(await resolve("tom", "t1-only", { decision: "approve" })).toEqual({
      status: 404,
      body: { error: "Approval not found" },
    });
    const theirs = await list("tom");
    expect(theirs.status).toBe(200);
    expect(theirs.body.map((a: { approval_id: string }) => a.approval_id)).not.toContain("t1-only");
    const ours = await list("ann");
    expect(ours.body.map((a: { approval_id: string }) => a.approval_id)).toContain("t1-only");
  });

  it("refuse a decision that is neither approve nor deny, a malformed body and an unknown approval", async () => {
    await orphan("bad-input");
    const refusal = { status: 400, body: { error: "decision must be 'approve' or 'deny'" } };
    expect(await resolve("alice", "bad-input", { decision: "maybe" })).toEqual(refusal);
    expect(await resolve("alice", "bad-input", {})).toEqual(refusal);
    expect(await resolve("alice", "bad-input", "{not json")).toEqual({
      status: 400,
      body: { error: "request body must be a JSON object" },
    });
    expect(await resolve("alice", "no-such-approval", { decision: "approve" })).toEqual({
      status: 404,
      body: { error: "Approval not found" },
    });
    expect(await list("alice", "?state=unknown")).toMatchObject({ status: 400 });
    expect((await list("alice", "?state=cancelled")).status).toBe(200);
  });

  it("need approval:read to read and approval:resolve to decide", async () => {
    expect((await list("bob")).status).toBe(403);
    await orphan("viewer-cannot");
    expect((await resolve("bob", "viewer-cannot", { decision: "deny" })).status).toBe(403);
    expect((await resolve("cal", "viewer-cannot", { decision: "deny" })).status).toBe(403);
  });
});

describe("without an approval gate", () => {
  it("answers the approval routes 503", async () => {
    const off = await startTestGateway("approvals: {enabled: false}\nmcp_servers: {}\n");
    try {
      const response = await off.app.inject({ method: "GET", url: "/api/approvals" });
      expect([response.statusCode, response.json()]).toEqual([
        503,
        { error: "Approval service is not enabled" },
      ]);
      const resolved = await off.app.inject({
        method: "POST",
        url: "/api/approvals/x/resolve",
        payload: { decision: "approve" },
      });
      expect(resolved.statusCode).toBe(503);
      // A body that is not a JSON object changes nothing: there is no gate to give it to.
      const malformed = await off.app.inject({
        method: "POST",
        url: "/api/approvals/x/resolve",
        headers: { "content-type": "application/json" },
        payload: "bad",
      });
      expect([malformed.statusCode, malformed.json()]).toEqual([
        503,
        { error: "Approval service is not enabled" },
      ]);
    } finally {
      await off.close();
    }
  });
});
