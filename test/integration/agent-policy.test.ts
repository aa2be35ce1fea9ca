import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetYaml, startTestGateway, type TestGateway } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

/** `POST /api/agent/policy` with authentication off: a pushed policy governs the next calls. */
let gw: TestGateway;
let client: Client;

beforeAll(async () => {
  gw = await startTestGateway(fleetYaml());
  client = await connectHttp(await gw.app.listen({ host: "127.0.0.1", port: 0 }));
});
afterAll(async () => {
  await client?.close();
  await gw?.close();
});

const push = (body: unknown) =>
  gw.app.inject({
    method: "POST",
    url: "/api/agent/policy",
    headers: { "content-type": "application/json" },
    payload: JSON.stringify(body),
  });

const outcome = async (target: string, tool: string, args: Record<string, unknown>) => {
  const { json } = await callJson(client, "gateway_call", {
    calls: [{ mcp_server: target, tool, arguments: args }],
  });
  const result = json.results[0];
  return result.success ? "ok" : result.error_type;
};

describe("POST /agent/policy", () => {
  it("applies pushed entries to the next calls: deny for every server, allow list per server", async () => {
    const response = await push({
      version: 1,
      tool_policies: [
        { mcp_server_id: "*", action: "deny", tool_name: "multi*" },
        { mcp_server_id: "text", action: "allow", tool_name: "reverse" },
        { mcp_server_id: "text", action: "audit", tool_name: "*" },
      ],
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: "ok", version: 1, applied: 3 });
    expect(await outcome("math", "multiply", { a: 2, b: 3 })).toBe("ToolAccessDeniedError");
    expect(await outcome("math", "add", { a: 2, b: 3 })).toBe("ok");
    expect(await outcome("text", "reverse", { text: "ab" })).toBe("ok");
    expect(await outcome("text", "uppercase", { text: "ab" })).toBe("ToolAccessDeniedError");
  });

  it("refuses an older version with 409 stale_version and keeps the policy in force", async () => {
    const response = await push({ version: 0, tool_policies: [] });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ error: "stale_version", version: 1 });
    expect(await outcome("math", "multiply", { a: 2, b: 3 })).toBe("ToolAccessDeniedError");
  });

  it("refuses bad entries naming the field and its rule, and changes nothing", async () => {
    const cases: [unknown, string][] = [
      [
        { version: 2, tool_policies: [{ mcp_server_id: "*", action: "block", tool_name: "x" }] },
        "tool_policies.0.action",
      ],
      [
        { version: 2, tool_policies: [{ mcp_server_id: "", action: "deny", tool_name: "x" }] },
        "tool_policies.0.mcp_server_id",
      ],
      [{ version: 2, tool_policies: [{ mcp_server_id: "*", action: "deny" }] }, "tool_policies.0.tool_name"],
      [{ version: -1 }, "version"],
      [{ version: 2, tool_policies: "deny all" }, "tool_policies"],
      [
        {
          version: 2,
          tool_policies: [
            { mcp_server_id: "*", action: "deny", tool_name: "x", approval_timeout_seconds: 0 },
          ],
        },
        "tool_policies.0.approval_timeout_seconds",
      ],
    ];
    for (const [body, field] of cases) {
      const response = await push(body);
      expect([field, response.statusCode]).toEqual([field, 422]);
      expect(response.json().error.message).toContain(`Invalid field '${field}'`);
    }
    const unknownKey = await push({
      version: 2,
      tool_policies: [{ mcp_server_id: "*", action: "deny", tool_name: "x", extra: 1 }],
    });
    expect(unknownKey.statusCode).toBe(422);
    expect(unknownKey.json().error.message).toBe(
      "Invalid field 'tool_policies.0.extra': is not a field this request takes",
    );
    // A misspelt top-level key is refused rather than read as an empty policy.
    const misspelt = await push({ version: 2, tool_polices: [] });
    expect(misspelt.statusCode).toBe(422);
    expect(misspelt.json().error.message).toBe(
      "Invalid field 'tool_polices': is not a field this request takes",
    );
    expect(gw.gateway.services.governance?.agent.version).toBe(1);
  });

  it("lifts the pushed policy with a newer empty push", async () => {
    expect((await push({ version: 2 })).json()).toEqual({ status: "ok", version: 2, applied: 0 });
    expect(await outcome("math", "multiply", { a: 2, b: 3 })).toBe("ok");
    expect(await outcome("text", "uppercase", { text: "ab" })).toBe("ok");
  });
});
