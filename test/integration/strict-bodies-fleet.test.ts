/**
 * Strict bodies on the fleet routes (MCP servers, L7 policy, groups) and their query parameters: a
 * field a route does not take answers 422 ValidationError naming it and changes nothing (read
 * back); a value of the wrong type is refused; the fields the spec accepts and drops on
 * POST /mcp_servers are still accepted, and the spec's own 400 shapes still come first.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNKNOWN_FIELD_RULE } from "../../src/app/validation.js";
import { ARITHMETIC, fleetYaml, startTestGateway, type TestGateway } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";
import { expectUnknownField } from "../support/validation-errors.js";

let gw: TestGateway;
let client: Client;

beforeAll(async () => {
  gw = await startTestGateway(fleetYaml());
  const base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  client = await connectHttp(base);
});
afterAll(async () => {
  await client?.close();
  await gw?.close();
});

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
const send = (method: Method, url: string, payload?: object) =>
  gw.app.inject({ method, url, ...(payload !== undefined && { payload }) });
const read = async (url: string) => (await send("GET", url)).json();

/** A refusal naming `field` with a rule of its own (a value of the wrong type). */
function expectInvalid(response: { statusCode: number; json(): unknown }, field: string): void {
  expect(response.statusCode).toBe(422);
  const body = response.json() as { error: { code: string; details: { issues: { field: string }[] } } };
  expect(body.error.code).toBe("ValidationError");
  expect(body.error.details.issues.map((issue) => issue.field)).toContain(field);
}

const registration = (id: string, extra: object = {}) => ({
  mcp_server_id: id,
  mode: "subprocess",
  command: ["node", ARITHMETIC],
  ...extra,
});

describe("POST /mcp_servers", () => {
  it("refuses a tool policy, which is not a registration field, and registers nothing", async () => {
    expectUnknownField(
      await send("POST", "/api/mcp_servers/", registration("fenced", { tools: { deny_list: ["*"] } })),
      "tools",
    );
    expect((await send("GET", "/api/mcp_servers/fenced")).statusCode).toBe(404);
    expect(await gw.gateway.services.repositories.serverConfigs.get("fenced")).toBeUndefined();
  });

  it("accepts and drops volumes, network, read_only and source; provenance stays api", async () => {
    const created = await send(
      "POST",
      "/api/mcp_servers/",
      registration("dropped", {
        volumes: ["/srv:/srv"],
        network: "host",
        read_only: false,
        source: "discovery",
      }),
    );
    expect([created.statusCode, created.json()]).toEqual([201, { mcp_server_id: "dropped", created: true }]);
    const spec = gw.gateway.services.fleet.require("dropped").spec;
    expect(spec.source).toBe("api");
    expect(Object.keys(spec)).not.toEqual(expect.arrayContaining(["volumes"]));
    expect(spec).not.toHaveProperty("network");
    expect(spec).not.toHaveProperty("read_only");
  });

  it("refuses an accepted-and-dropped field of the wrong type rather than skipping it", async () => {
    expectInvalid(
      await send("POST", "/api/mcp_servers/", registration("typed", { read_only: "no" })),
      "read_only",
    );
    expectInvalid(
      await send("POST", "/api/mcp_servers/", registration("typed", { volumes: "/a:/b" })),
      "volumes",
    );
    expect((await send("GET", "/api/mcp_servers/typed")).statusCode).toBe(404);
  });

  it("still answers 400 missing_fields first, and 400 ssrf_blocked for a private endpoint", async () => {
    const missing = await send("POST", "/api/mcp_servers/", {
      mode: "subprocess",
      tools: { deny_list: ["*"] },
    });
    expect([missing.statusCode, missing.json().error]).toEqual([400, "missing_fields"]);
    const ssrf = await send("POST", "/api/mcp_servers/", {
      mcp_server_id: "inside",
      mode: "remote",
      endpoint: "http://10.1.2.3/mcp",
    });
    expect([ssrf.statusCode, ssrf.json().error]).toEqual([400, "ssrf_blocked"]);
  });
});

describe("PUT and PATCH /mcp_servers/{id}", () => {
  it("refuses command, naming it, and changes nothing", async () => {
    const before = gw.gateway.services.fleet.require("math").spec;
    for (const method of ["PATCH", "PUT"] as const) {
      expectUnknownField(
        await send(method, "/api/mcp_servers/math", { description: "changed", command: ["node", "-e", "1"] }),
        "command",
      );
    }
    const after = gw.gateway.services.fleet.require("math").spec;
    expect(after.command).toEqual(before.command);
    expect(after.description).toBe("Arithmetic tools");
  });

  it("refuses a body field repeating the path id, and a value of the wrong type", async () => {
    expectUnknownField(
      await send("PATCH", "/api/mcp_servers/math", { mcp_server: "text", description: "x" }),
      "mcp_server",
    );
    expectInvalid(await send("PATCH", "/api/mcp_servers/math", { idle_ttl_s: "60" }), "idle_ttl_s");
    expect(gw.gateway.services.fleet.require("math").spec.idle_ttl_s).toBe(300);
    expect(gw.gateway.services.fleet.require("text").spec.description).toBeUndefined();
  });

  it("still updates what it takes", async () => {
    const res = await send("PATCH", "/api/mcp_servers/dropped", { description: "kept", idle_ttl_s: 60 });
    expect([res.statusCode, res.json()]).toEqual([200, { mcp_server_id: "dropped", updated: true }]);
    expect(gw.gateway.services.fleet.require("dropped").spec).toMatchObject({
      description: "kept",
      idle_ttl_s: 60,
    });
  });
});

describe("routes that take no body, or one field", () => {
  it("refuse a field on start, block and delete, and nothing happens", async () => {
    expectUnknownField(await send("POST", "/api/mcp_servers/math/start", { warm: true }), "warm");
    expectUnknownField(await send("POST", "/api/mcp_servers/math/block", { permanent: true }), "permanent");
    expectUnknownField(await send("DELETE", "/api/mcp_servers/dropped", { force: true }), "force");
    expect((await read("/api/mcp_servers/math")).state).toBe("cold");
    expect(gw.gateway.services.fleet.require("math").lifecycle.blocked).toBe(false);
    expect((await send("GET", "/api/mcp_servers/dropped")).statusCode).toBe(200);
  });

  it("refuse a field besides stop's reason, and an explicit null reason is the default", async () => {
    expect((await send("POST", "/api/mcp_servers/text/start")).statusCode).toBe(200);
    expectUnknownField(await send("POST", "/api/mcp_servers/text/stop", { reason: "x", now: true }), "now");
    expect((await read("/api/mcp_servers/text")).state).toBe("ready");
    const stopped = await send("POST", "/api/mcp_servers/text/stop", { reason: null });
    expect(stopped.json()).toEqual({ stopped: "text", reason: "user_request" });
  });
});

describe("query parameters", () => {
  it("answer 400 invalid_query to logs lines and history limit or from_position that are not integers", async () => {
    for (const [url, name] of [
      ["/api/mcp_servers/math/logs?lines=abc", "lines"],
      ["/api/mcp_servers/math/logs?lines=1.5", "lines"],
      ["/api/mcp_servers/math/logs?lines=1e3", "lines"],
      ["/api/mcp_servers/math/tools/history?limit=ten", "limit"],
      ["/api/mcp_servers/math/tools/history?from_position=0x10", "from_position"],
    ] as const) {
      const res = await send("GET", url);
      expect([url, res.statusCode, res.json()]).toEqual([
        url,
        400,
        { error: "invalid_query", detail: `${name} must be an integer` },
      ]);
    }
  });

  it("still clamp integers out of range and read an empty value as the default", async () => {
    for (const query of ["lines=5000", "lines=-3", "lines=", "lines=99999999999999999999999"]) {
      expect((await send("GET", `/api/mcp_servers/math/logs?${query}`)).statusCode).toBe(200);
    }
    const history = await send("GET", "/api/mcp_servers/math/tools/history?limit=9999&from_position=-1");
    expect([history.statusCode, history.json().total]).toEqual([200, 0]);
  });
});

describe("L7 policy", () => {
  const policy = { tools: { allow: ["add"] }, defaultAction: "Deny" };

  it("refuses an unknown policy key and a field on DELETE, keeping the policy attached", async () => {
    expect((await send("POST", "/api/mcp_servers/math/l7_policy", policy)).statusCode).toBe(200);
    const before = await read("/api/mcp_servers/math/l7_policy");
    const unknown = await send("PUT", "/api/mcp_servers/math/l7_policy", { ...policy, colour: "red" });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error.message).toContain("colour");
    expectUnknownField(await send("DELETE", "/api/mcp_servers/math/l7_policy", { all: true }), "all");
    expect(await read("/api/mcp_servers/math/l7_policy")).toEqual(before);
  });
});

describe("groups", () => {
  it("refuse members on POST /groups (members are added on their own route) and create nothing", async () => {
    expectUnknownField(await send("POST", "/api/groups/", { group_id: "pool", members: [5] }), "members");
    expect((await send("GET", "/api/groups/pool")).statusCode).toBe(404);
    expectInvalid(await send("POST", "/api/groups/", { group_id: "pool", strategy: 5 }), "strategy");
    expectInvalid(await send("POST", "/api/groups/", { group_id: "pool", min_healthy: "2" }), "min_healthy");
    expect((await send("GET", "/api/groups/pool")).statusCode).toBe(404);
  });

  it("refuse unknown fields on update, member add and removal, rebalance and delete; nothing changes", async () => {
    expect((await send("POST", "/api/groups/", { group_id: "pool" })).statusCode).toBe(201);
    expect((await send("POST", "/api/groups/pool/members", { member_id: "math" })).statusCode).toBe(201);
    const before = await read("/api/groups/pool");
    expectUnknownField(await send("PUT", "/api/groups/pool", { min_healthy: 2, members: [] }), "members");
    expectUnknownField(await send("PUT", "/api/groups/pool", { group_id: "other" }), "group_id");
    expectUnknownField(
      await send("POST", "/api/groups/pool/members", { member_id: "text", tools: { deny_list: ["*"] } }),
      "tools",
    );
    expectInvalid(
      await send("POST", "/api/groups/pool/members", { member_id: "text", weight: "5" }),
      "weight",
    );
    expectUnknownField(await send("POST", "/api/groups/pool/rebalance", { force: true }), "force");
    expectUnknownField(await send("DELETE", "/api/groups/pool/members/math", { drain: true }), "drain");
    expectUnknownField(await send("DELETE", "/api/groups/pool", { cascade: true }), "cascade");
    expect(await read("/api/groups/pool")).toEqual(before);
    expect(before).toMatchObject({ min_healthy: 1, total_members: 1 });
  });
});

describe("management tools share the operations' inputs", () => {
  it("refuse an argument the tool does not take, naming it, and do nothing", async () => {
    const { isError, text } = await callJson(client, "gateway_start", { mcp_server: "ctl", warm: true });
    expect(isError).toBe(true);
    expect(text).toBe(`Error executing tool gateway_start: invalid_warm: warm ${UNKNOWN_FIELD_RULE}`);
    expect((await read("/api/mcp_servers/ctl")).state).toBe("cold");
  });

  it("refuse gateway_tools' inner start flag, which is no parameter of the tool", async () => {
    const { isError, text } = await callJson(client, "gateway_tools", { mcp_server: "ctl", start: false });
    expect(isError).toBe(true);
    expect(text).toBe(`Error executing tool gateway_tools: invalid_start: start ${UNKNOWN_FIELD_RULE}`);
  });

  it("refuse a gateway_call argument, or a field of one call, that gateway_call does not take", async () => {
    const call = { mcp_server: "ctl", tool: "echo", arguments: { text: "x" } };
    const batch = await callJson(client, "gateway_call", { calls: [call], bogus: 1 });
    expect(batch.isError).toBe(true);
    expect(batch.text).toContain(`invalid_bogus: bogus ${UNKNOWN_FIELD_RULE}`);
    const inner = await callJson(client, "gateway_call", { calls: [{ ...call, extra: 1 }] });
    expect(inner.json).toMatchObject({
      success: false,
      validation_errors: [{ index: 0, field: "extra", message: `extra ${UNKNOWN_FIELD_RULE}` }],
    });
    expect((await read("/api/mcp_servers/ctl")).state).toBe("cold");
  });

  it("advertise every management tool's parameters as closed (additionalProperties false)", async () => {
    const { tools } = await client.listTools();
    const open = tools
      .filter((tool) => tool.name.startsWith("gateway_"))
      .filter(
        (tool) => (tool.inputSchema as { additionalProperties?: unknown }).additionalProperties !== false,
      )
      .map((tool) => tool.name);
    expect(open).toEqual([]);
  });
});
