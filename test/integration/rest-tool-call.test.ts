import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DomainEvent } from "../../src/domain/events.js";
import { createApiKey } from "../support/api-keys.js";
import { ARITHMETIC, CONTROLLABLE, startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";

let gw: TestGateway;
const keys: Record<string, string> = {};
const events: DomainEvent[] = [];

beforeAll(async () => {
  gw = await startTestGateway(`
auth:
  enabled: true
  rate_limit: {max_attempts: 100000}
  role_assignments:
    - {principal: alice, role: admin}
    - {principal: cal, role: developer}
    - {principal: bob, role: viewer}
    - {principal: tess, role: developer, scope: "tenant:t1"}
    - {principal: mo, role: math-caller}
rate_limit: {rps: 1000, burst: 1000}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
  echoes:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]
    tools: {deny_list: [env], approval_list: [echo], approval_timeout_seconds: 60}
`);
  await gw.gateway.services.repositories.roles.create({
    role_name: "math-caller",
    description: "",
    permissions: ["tool:invoke:math"],
    created_at: Date.now() / 1000,
    created_by: "test",
  });
  gw.gateway.services.authorizer.invalidate();
  keys.alice = await createApiKey(gw, "alice");
  keys.cal = await createApiKey(gw, "cal");
  keys.bob = await createApiKey(gw, "bob");
  keys.tess = await createApiKey(gw, "tess", { tenant: "t1" });
  keys.mo = await createApiKey(gw, "mo");
  gw.gateway.services.bus.subscribe((event) => events.push(event));
});
afterAll(async () => {
  await gw?.close();
});

const call = async (who: string, body: unknown) => {
  const response = await gw.app.inject({
    method: "POST",
    url: "/api/tools/call",
    headers: { "x-api-key": keys[who] as string, "content-type": "application/json" },
    payload: JSON.stringify(body),
  });
  return { status: response.statusCode, body: response.json() };
};

const resolve = (id: string, body: Record<string, unknown>) =>
  gw.app.inject({
    method: "POST",
    url: `/api/approvals/${id}/resolve`,
    headers: { "x-api-key": keys.alice as string, "content-type": "application/json" },
    payload: JSON.stringify(body),
  });

/** The id of the pending approval of `echoes` requested by `who` after `since` events. */
async function pendingFor(who: string, since: number): Promise<string> {
  let id = "";
  await waitFor(() => {
    const found = events
      .slice(since)
      .find((event) => event.type === "ToolApprovalRequested" && event.requested_by === who);
    id = found && "approval_id" in found ? String(found.approval_id) : "";
    return id !== "";
  });
  return id;
}

describe("POST /api/tools/call", () => {
  it("answers the tool's result for a caller with tool:invoke", async () => {
    const { status, body } = await call("cal", {
      mcp_server: "math",
      tool: "add",
      arguments: { a: 2, b: 3 },
    });
    expect(status).toBe(200);
    expect(body.isError ?? false).toBe(false);
    expect(body.content[0]).toMatchObject({ type: "text" });
    expect(body.structuredContent).toMatchObject({ result: 5 });
  });

  it("answers an isError result as a 200 with the tool's own words", async () => {
    const { status, body } = await call("cal", {
      mcp_server: "math",
      tool: "divide",
      arguments: { a: 1, b: 0 },
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "Cannot divide by zero: b must not be 0." }],
    });
  });

  it("refuses a caller without tool:invoke with 403", async () => {
    const { status, body } = await call("bob", {
      mcp_server: "math",
      tool: "add",
      arguments: { a: 1, b: 1 },
    });
    expect(status).toBe(403);
    expect(body.error).toMatchObject({ code: "AccessDeniedError" });
    expect(body.error.message).toContain("tool:invoke");
  });

  it("refuses a caller whose grant is held only at tenant scope", async () => {
    const { status, body } = await call("tess", {
      mcp_server: "math",
      tool: "add",
      arguments: { a: 1, b: 1 },
    });
    expect(status).toBe(403);
    expect(body.error.code).toBe("AccessDeniedError");
  });

  it("admits a grant for one server on that server only", async () => {
    const allowed = await call("mo", { mcp_server: "math", tool: "add", arguments: { a: 1, b: 1 } });
    expect(allowed.status).toBe(200);
    expect(allowed.body.structuredContent).toMatchObject({ result: 2 });
    const refused = await call("mo", { mcp_server: "echoes", tool: "sleep", arguments: { ms: 0 } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("AccessDeniedError");
  });

  it("answers a tool policy's refusal in words, with its type and status", async () => {
    const { status, body } = await call("cal", { mcp_server: "echoes", tool: "env", arguments: {} });
    expect(status).toBe(403);
    expect(body.error.code).toBe("ToolAccessDeniedError");
    expect(body.error.message).toBe("Tool not available for this mcp_server");
  });

  it("refuses bad input with 422 naming the field", async () => {
    const missing = await call("cal", { mcp_server: "math", arguments: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ code: "ValidationError" });
    expect(missing.body.error.message).toContain("'tool'");
    const notObject = await call("cal", { mcp_server: "math", tool: "add", arguments: [1, 2] });
    expect(notObject.status).toBe(422);
    expect(notObject.body.error.message).toContain("'arguments'");
    const unknown = await call("cal", { mcp_server: "math", tool: "add", calls: [] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.message).toContain("'calls'");
  });

  it("answers 404 for a server that does not exist", async () => {
    const { status, body } = await call("cal", { mcp_server: "nowhere", tool: "add" });
    expect(status).toBe(404);
    expect(body.error.code).toBe("McpServerNotFoundError");
  });

  it("holds a call on an approval list, and answers its result once approved", async () => {
    const since = events.length;
    const answer = call("cal", { mcp_server: "echoes", tool: "echo", arguments: { message: "ship it" } });
    const id = await pendingFor("cal", since);
    const listed = await gw.app.inject({
      method: "GET",
      url: "/api/approvals",
      headers: { "x-api-key": keys.alice as string },
    });
    expect(listed.json()).toContainEqual(
      expect.objectContaining({ approval_id: id, tool_name: "echo", state: "pending", requested_by: "cal" }),
    );
    expect((await resolve(id, { decision: "approve" })).statusCode).toBe(200);
    const { status, body } = await answer;
    expect(status).toBe(200);
    expect(body.content).toEqual([{ type: "text", text: "ship it" }]);
  });

  it("stops holding a call whose caller goes away", async () => {
    const base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
    const since = events.length;
    const abort = new AbortController();
    const answer = fetch(`${base}/api/tools/call`, {
      method: "POST",
      headers: { "x-api-key": keys.cal as string, "content-type": "application/json" },
      body: JSON.stringify({ mcp_server: "echoes", tool: "echo", arguments: { message: "bye" } }),
      signal: abort.signal,
    }).catch((error: unknown) => error);
    const id = await pendingFor("cal", since);
    abort.abort();
    expect(await answer).toBeInstanceOf(Error);
    await waitFor(() =>
      events
        .slice(since)
        .some(
          (event) =>
            event.type === "ToolApprovalExpired" && "approval_id" in event && event.approval_id === id,
        ),
    );
  });

  it("holds a call on an approval list, and refuses it in words once denied", async () => {
    const since = events.length;
    const answer = call("cal", { mcp_server: "echoes", tool: "echo", arguments: { message: "no" } });
    const id = await pendingFor("cal", since);
    expect((await resolve(id, { decision: "deny", reason: "not today" })).statusCode).toBe(200);
    const { status, body } = await answer;
    expect(status).toBe(403);
    expect(body.error).toMatchObject({
      code: "ToolAccessDeniedError",
      details: { reason: "approval_denied", approval_id: id, decision_reason: "not today" },
    });
    expect(body.error.message).toContain("held for approval and refused");
  });
});
