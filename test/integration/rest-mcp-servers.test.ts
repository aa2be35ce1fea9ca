import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";

let gw: TestGateway;

/** Spec 2 §7: an error without a REST status is a 500 that says nothing more than its type. */
const generic500 = (code: string) => ({
  error: { code, message: "An internal server error occurred.", details: null },
});
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

const inject = (method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", url: string, payload?: unknown) =>
  gw.app.inject({ method, url, ...(payload !== undefined && { payload: payload as object }) });

describe("collection paths", () => {
  it("answer 307 to the trailing-slash path from the bare path, keeping the query", async () => {
    const res = await inject("GET", "/api/mcp_servers?state=cold");
    expect(res.statusCode).toBe(307);
    expect(res.headers.location).toBe("/api/mcp_servers/?state=cold");
  });

  it("redirect a POST with 307 so the client re-sends method and body", async () => {
    const res = await inject("POST", "/api/mcp_servers", { mcp_server_id: "x", mode: "subprocess" });
    expect(res.statusCode).toBe(307);
    expect(res.headers.location).toBe("/api/mcp_servers/");
  });

  it.each(["/api/tools", "/api/system"])("redirect %s too", async (path) => {
    const res = await inject("GET", path);
    expect(res.statusCode).toBe(307);
    expect(res.headers.location).toBe(`${path}/`);
  });

  it("resolve only under the /api prefix", async () => {
    const res = await inject("GET", "/mcp_servers/");
    expect(res.statusCode).toBe(404);
  });
});

describe("listing and reading servers", () => {
  it("lists declared servers with the summary fields of the spec", async () => {
    const res = await inject("GET", "/api/mcp_servers/");
    expect(res.statusCode).toBe(200);
    const { mcp_servers } = res.json();
    const math = mcp_servers.find((s: { mcp_server_id: string }) => s.mcp_server_id === "math");
    expect(math).toEqual({
      mcp_server_id: "math",
      state: "cold",
      mode: "subprocess",
      alive: false,
      tools_count: 0,
      health_status: "unknown",
      tools_predefined: false,
      dead: null,
      description: "Arithmetic tools",
    });
    const text = mcp_servers.find((s: { mcp_server_id: string }) => s.mcp_server_id === "text");
    expect(text).not.toHaveProperty("description");
  });

  it("filters by state, and an unknown state gives an empty list", async () => {
    const cold = await inject("GET", "/api/mcp_servers/?state=cold");
    expect(cold.json().mcp_servers.length).toBeGreaterThanOrEqual(4);
    const none = await inject("GET", "/api/mcp_servers/?state=bogus");
    expect(none.json()).toEqual({ mcp_servers: [] });
  });

  it("answers the detail object of one server", async () => {
    const res = await inject("GET", "/api/mcp_servers/text");
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(
      ["alive", "dead", "health", "idle_time", "mcp_server_id", "meta", "mode", "state", "tools"].sort(),
    );
    expect(body.health).toEqual({
      consecutive_failures: 0,
      total_invocations: 0,
      total_failures: 0,
      success_rate: 1,
      can_retry: true,
      last_success_ago: null,
      last_failure_ago: null,
    });
  });

  it("answers 404 McpServerNotFoundError for an unknown id on every per-server route", async () => {
    for (const [method, path] of [
      ["GET", ""],
      ["PUT", ""],
      ["DELETE", ""],
      ["POST", "/start"],
      ["POST", "/stop"],
      ["POST", "/block"],
      ["GET", "/tools"],
      ["GET", "/health"],
      ["GET", "/logs"],
    ] as const) {
      const res = await inject(method, `/api/mcp_servers/nope${path}`, method === "GET" ? undefined : {});
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json()).toEqual({
        error: { code: "McpServerNotFoundError", message: "McpServer not found: nope", details: null },
      });
    }
  });
});

describe("registering, updating and deleting", () => {
  it("registers a server cold with provenance api and answers 201", async () => {
    const res = await inject("POST", "/api/mcp_servers/", {
      mcp_server_id: "extra",
      mode: "subprocess",
      command: ["node", "examples/servers/text.mjs"],
      description: "added at runtime",
      source: "discovery",
      volumes: ["/a:/b"],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ mcp_server_id: "extra", created: true });
    const detail = (await inject("GET", "/api/mcp_servers/extra")).json();
    expect(detail.state).toBe("cold");
    expect(gw.gateway.services.fleet.require("extra").spec.source).toBe("api");
  });

  it("answers 422 ValidationError for an id that already exists", async () => {
    const res = await inject("POST", "/api/mcp_servers/", {
      mcp_server_id: "math",
      mode: "subprocess",
      command: ["node"],
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe("ValidationError");
    expect(res.json().error.message).toBe("McpServer already exists: math");
  });

  it("answers 400 missing_fields naming the absent fields", async () => {
    const res = await inject("POST", "/api/mcp_servers/", { description: "no id" });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: "missing_fields",
      detail: "required field(s) absent: mcp_server_id, mode",
    });
  });

  it("counts a null or empty required field as absent: 400 missing_fields, nothing registered", async () => {
    for (const id of [null, ""]) {
      const res = await inject("POST", "/api/mcp_servers/", {
        mcp_server_id: id,
        mode: "subprocess",
        command: null,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error: "missing_fields",
        detail: "required field(s) absent: mcp_server_id, command",
      });
    }
    expect(
      (await inject("GET", "/api/mcp_servers/")).json().mcp_servers.map((s: { id: string }) => s.id),
    ).not.toContain("");
  });

  it("answers 400 missing_fields when the mode's own field is absent", async () => {
    const res = await inject("POST", "/api/mcp_servers/", { mcp_server_id: "y", mode: "subprocess" });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe("required field(s) absent: command");
  });

  it("answers 400 invalid_body for a body that is not a JSON object, and changes nothing", async () => {
    const array = await inject("POST", "/api/mcp_servers/", [1, 2]);
    expect(array.statusCode).toBe(400);
    expect(array.json().error).toBe("invalid_body");
    const malformed = await gw.app.inject({
      method: "POST",
      url: "/api/mcp_servers/",
      headers: { "content-type": "application/json" },
      payload: "{not json",
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toBe("invalid_body");
  });

  it("answers 422 naming the field and the rule for an out-of-range value", async () => {
    const res = await inject("POST", "/api/mcp_servers/", {
      mcp_server_id: "z",
      mode: "subprocess",
      command: ["node"],
      idle_ttl_s: 0,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.message).toContain("idle_ttl_s");
    expect((await inject("GET", "/api/mcp_servers/z")).statusCode).toBe(404);
  });

  it("takes ids by the configuration file's rule: 1-128 characters, starting with a letter or digit", async () => {
    const register = (id: string) =>
      inject("POST", "/api/mcp_servers/", { mcp_server_id: id, mode: "subprocess", command: ["node"] });
    for (const id of ["..", "-x", "_x", "a/b", "y".repeat(129)]) {
      const res = await register(id);
      expect(res.statusCode, id).toBe(422);
      expect(res.json().error.message).toContain("mcp_server_id");
    }
    expect((await register("y".repeat(128))).statusCode).toBe(201);
    expect((await inject("DELETE", `/api/mcp_servers/${"y".repeat(128)}`)).statusCode).toBe(200);
  });

  it("updates with PUT and PATCH alike", async () => {
    const put = await inject("PUT", "/api/mcp_servers/extra", { description: "changed", idle_ttl_s: 60 });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ mcp_server_id: "extra", updated: true });
    const patch = await inject("PATCH", "/api/mcp_servers/extra", { env: { A: "1" } });
    expect(patch.json()).toEqual({ mcp_server_id: "extra", updated: true });
    const spec = gw.gateway.services.fleet.require("extra").spec;
    expect(spec).toMatchObject({ description: "changed", idle_ttl_s: 60, env: { A: "1" } });
  });

  it("refuses to delete a server declared in the configuration with 409, and it stays", async () => {
    const res = await inject("DELETE", "/api/mcp_servers/math");
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: "declared_in_config", mcp_server_id: "math" });
    expect(typeof res.json().detail).toBe("string");
    expect((await inject("GET", "/api/mcp_servers/math")).statusCode).toBe(200);
  });

  it("deletes a server registered at runtime", async () => {
    const res = await inject("DELETE", "/api/mcp_servers/extra");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ mcp_server_id: "extra", deleted: true });
    expect((await inject("GET", "/api/mcp_servers/extra")).statusCode).toBe(404);
  });
});

describe("lifecycle over REST", () => {
  it("starts a server and lists its tool names", async () => {
    const res = await inject("POST", "/api/mcp_servers/math/start");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      mcp_server: "math",
      state: "ready",
      tools: expect.arrayContaining(["add", "subtract", "multiply", "divide", "sum"]),
    });
    const summary = (await inject("GET", "/api/mcp_servers/?state=ready")).json().mcp_servers;
    expect(summary.find((s: { mcp_server_id: string }) => s.mcp_server_id === "math")).toMatchObject({
      alive: true,
      health_status: "healthy",
      tools_count: 5,
    });
  });

  it("lists tools with 64-hex digests", async () => {
    const res = await inject("GET", "/api/mcp_servers/math/tools");
    expect(res.statusCode).toBe(200);
    const add = res.json().tools.find((t: { name: string }) => t.name === "add");
    expect(add.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(add.inputSchema).toMatchObject({ type: "object" });
    expect(add).not.toHaveProperty("pinned_digest");
  });

  it("lists every known tool at /tools with the schema as text", async () => {
    const res = await inject("GET", "/api/tools/");
    expect(res.statusCode).toBe(200);
    const tools = res.json().tools;
    const add = tools.find((t: { tool_name: string }) => t.tool_name === "add");
    expect(add).toMatchObject({ mcp_server_id: "math", description: expect.any(String) });
    expect(typeof add.input_schema).toBe("string");
    expect(JSON.parse(add.input_schema)).toMatchObject({ type: "object" });
    expect(tools.some((t: { mcp_server_id: string }) => t.mcp_server_id === "text")).toBe(false);
  });

  it("keeps the server's stderr lines and clamps the line count", async () => {
    const logs = (await inject("GET", "/api/mcp_servers/math/logs")).json();
    expect(logs.mcp_server_id).toBe("math");
    expect(logs.count).toBe(logs.logs.length);
    expect(logs.logs[0]).toMatchObject({
      mcp_server_id: "math",
      stream: "stderr",
      content: expect.any(String),
    });
    expect(typeof logs.logs[0].recorded_at).toBe("number");
    const one = (await inject("GET", "/api/mcp_servers/math/logs?lines=0")).json();
    expect(one.count).toBeLessThanOrEqual(1);
    const many = await inject("GET", "/api/mcp_servers/math/logs?lines=5000");
    expect(many.statusCode).toBe(200);
  });

  it("answers the health object", async () => {
    const res = await inject("GET", "/api/mcp_servers/math/health");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ consecutive_failures: 0, can_retry: true });
  });

  it("stops with the default reason user_request, or the reason given", async () => {
    const res = await inject("POST", "/api/mcp_servers/math/stop");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ stopped: "math", reason: "user_request" });
    await inject("POST", "/api/mcp_servers/text/start");
    const custom = await inject("POST", "/api/mcp_servers/text/stop", { reason: "maintenance" });
    expect(custom.json()).toEqual({ stopped: "text", reason: "maintenance" });
    const detail = (await inject("GET", "/api/mcp_servers/text")).json();
    expect(detail).toMatchObject({ state: "cold", alive: false });
  });

  it("reports a server that cannot start as a start failure saying why, and keeps it dead with reason start_failed", async () => {
    const res = await inject("POST", "/api/mcp_servers/broken/start");
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      error: {
        code: "CannotStartMcpServerError",
        message: "An internal server error occurred.",
        details: {
          mcp_server_id: "broken",
          reason: "process exited with code 1 before initialize",
          exit_code: 1,
          signal: null,
          stderr: ["fatal: missing configuration, cannot start"],
        },
      },
    });
    expect(res.body).not.toContain("fails-to-start");
    const detail = (await inject("GET", "/api/mcp_servers/broken")).json();
    expect(detail.state).toBe("dead");
    expect(detail.dead).toMatchObject({ reason: "start_failed", revived_by: "call_or_start" });
    expect(new Date(detail.dead.since).toISOString()).toBe(detail.dead.since);
    const logs = (await inject("GET", "/api/mcp_servers/broken/logs")).json();
    expect(logs.logs.map((l: { content: string }) => l.content).join("\n")).toMatch(/start failed/);
  });
});

describe("request bodies and queries", () => {
  it("read a JSON body whatever its content type says, as curl -d sends it", async () => {
    const res = await gw.app.inject({
      method: "POST",
      url: "/api/mcp_servers/",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: JSON.stringify({ mcp_server_id: "formish", mode: "subprocess", command: ["node", "x.mjs"] }),
    });
    expect(res.statusCode).toBe(201);
    await inject("DELETE", "/api/mcp_servers/formish");
  });

  it("refuse a malformed body even on stop, which needs none: 400 invalid_body, nothing stopped", async () => {
    await inject("POST", "/api/mcp_servers/text/start");
    const res = await gw.app.inject({
      method: "POST",
      url: "/api/mcp_servers/text/stop",
      headers: { "content-type": "application/json" },
      payload: "{oops",
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: "invalid_body", detail: "request body is not valid JSON" });
    expect(gw.gateway.services.fleet.require("text").lifecycle.state).toBe("ready");
    expect((await inject("POST", "/api/mcp_servers/text/stop")).json()).toEqual({
      stopped: "text",
      reason: "user_request",
    });
  });

  it("clamp the logs line count to 1-1000, and read an empty value as the default 100", async () => {
    const ctl = gw.gateway.services.fleet.require("ctl");
    await gw.gateway.services.invoker.call(
      ctl,
      "stderr",
      { line: "noise", count: 1200 },
      { callId: "t", timeoutMs: 10_000 },
    );
    await waitFor(
      async () => (await inject("GET", "/api/mcp_servers/ctl/logs?lines=1000")).json().count === 1000,
    );
    expect((await inject("GET", "/api/mcp_servers/ctl/logs?lines=0")).json().count).toBe(1);
    expect((await inject("GET", "/api/mcp_servers/ctl/logs?lines=-5")).json().count).toBe(1);
    expect((await inject("GET", "/api/mcp_servers/ctl/logs?lines=5000")).json().count).toBe(1000);
    expect((await inject("GET", "/api/mcp_servers/ctl/logs?lines=")).json().count).toBe(100);
    expect((await inject("GET", "/api/mcp_servers/ctl/logs")).json().count).toBe(100);
    const last = (await inject("GET", "/api/mcp_servers/ctl/logs?lines=1")).json().logs[0];
    expect(last.content).toBe("noise 1200");
    await inject("POST", "/api/mcp_servers/ctl/stop");
  });

  it("keep the detail object to the fields of the spec, description included only in summaries", async () => {
    const detail = (await inject("GET", "/api/mcp_servers/math")).json();
    expect(detail).not.toHaveProperty("description");
  });
});

describe("concurrent changes of one server", () => {
  it("let exactly one of two registrations of the same id win, in the fleet and in the store alike", async () => {
    const body = (description: string) => ({
      mcp_server_id: "twin",
      mode: "subprocess",
      command: ["node", "x.mjs"],
      description,
    });
    const [a, b] = await Promise.all([
      inject("POST", "/api/mcp_servers/", body("A")),
      inject("POST", "/api/mcp_servers/", body("B")),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([201, 422]);
    const winner = a.statusCode === 201 ? "A" : "B";
    const stored = await gw.gateway.services.repositories.serverConfigs.get("twin");
    expect(stored?.spec.description).toBe(winner);
    expect(gw.gateway.services.fleet.require("twin").spec.description).toBe(winner);
    await inject("DELETE", "/api/mcp_servers/twin");
  });

  it("never let a call restart a server being deleted", async () => {
    await inject("POST", "/api/mcp_servers/", {
      mcp_server_id: "going",
      mode: "subprocess",
      command: ["node", "examples/servers/text.mjs"],
    });
    const server = gw.gateway.services.fleet.require("going");
    await inject("POST", "/api/mcp_servers/going/start");
    const deleting = inject("DELETE", "/api/mcp_servers/going");
    const call = gw.gateway.services.invoker
      .call(server, "echo", { text: "x" }, { callId: "late", timeoutMs: 5_000 })
      .catch((error: Error) => error);
    expect((await deleting).statusCode).toBe(200);
    await call;
    expect(server.alive).toBe(false);
    expect(gw.gateway.services.fleet.has("going")).toBe(false);
  });
});

describe("blocking", () => {
  it("stops a server for good: later starts are refused", async () => {
    await inject("POST", "/api/mcp_servers/", {
      mcp_server_id: "doomed",
      mode: "subprocess",
      command: ["node", "examples/servers/text.mjs"],
    });
    await inject("POST", "/api/mcp_servers/doomed/start");
    const res = await inject("POST", "/api/mcp_servers/doomed/block");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ mcp_server_id: "doomed", blocked: true });
    const detail = (await inject("GET", "/api/mcp_servers/doomed")).json();
    expect(detail).toMatchObject({ state: "cold", alive: false });
    const start = await inject("POST", "/api/mcp_servers/doomed/start");
    expect(start.statusCode).toBe(500);
    expect(start.json()).toEqual({
      error: {
        code: "CannotStartMcpServerError",
        message: "An internal server error occurred.",
        details: { mcp_server_id: "doomed" },
      },
    });
    await inject("DELETE", "/api/mcp_servers/doomed");
  });
});

describe("system and probes", () => {
  it("answers the system object with the instance block", async () => {
    const res = await inject("GET", "/api/system/");
    expect(res.statusCode).toBe(200);
    const { system } = res.json();
    expect(system).toMatchObject({
      total_mcp_servers: 4,
      total_tools: expect.any(Number),
      total_invocations: expect.any(Number),
      total_failures: expect.any(Number),
      overall_success_rate: expect.any(Number),
      uptime_seconds: expect.any(Number),
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      instance: {
        instance_id: expect.stringMatching(/^test-[0-9a-f]{8}$/),
        coordinates_with_peers: false,
        manages_fleet: true,
        storage_is_shareable: false,
        rate_limits_are_per_instance: true,
      },
    });
    expect(Object.values(system.mcp_servers_by_state).reduce((a: number, b) => a + (b as number), 0)).toBe(4);
  });

  it("says the caller is not authenticated when auth is off", async () => {
    const res = await inject("GET", "/api/system/me");
    expect(res.json()).toEqual({ authenticated: false, principal: { id: "anonymous", type: "anonymous" } });
  });

  it("is live and ready even with every server cold", async () => {
    expect((await inject("GET", "/health/live")).json()).toEqual({ status: "healthy" });
    const ready = await inject("GET", "/health/ready");
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: "healthy", total_mcp_servers: 4 });
  });

  it("answers an unexpected failure with a bare 500 that reveals nothing", async () => {
    const fleet = gw.gateway.services.fleet;
    const original = fleet.list;
    fleet.list = () => {
      throw new Error("secret detail at /var/lib/internal");
    };
    try {
      const res = await inject("GET", "/api/mcp_servers/");
      expect(res.statusCode).toBe(500);
      expect(res.body).not.toContain("secret");
      expect(res.json()).toEqual(generic500("InternalServerError"));
    } finally {
      fleet.list = original;
    }
  });
});
