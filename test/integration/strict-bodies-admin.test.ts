/**
 * Strict bodies on the configuration, discovery, governance and approval routes: a field a route
 * does not take answers 422 naming it and changes nothing (read back); the spec's own shapes stay:
 * 422 for `config_path`, 400 `missing_fields` and `invalid_mode` on discovery sources, and the
 * approval routes' flat `{error}` bodies (400 for a bad decision, 422 for an unknown field).
 */
import { createHmac } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNKNOWN_FIELD_RULE } from "../../src/app/validation.js";
import type { Gateway } from "../../src/composition/create-gateway.js";
import { pendingApproval } from "../support/approvals.js";
import { ARITHMETIC, CONTROLLABLE, type FileGateway, startFileGateway, TEXT } from "../support/gateway.js";
import { expectUnknownField } from "../support/validation-errors.js";

const SIGNING_SECRET = "webhook-signing-secret-0123456789";

const SERVERS = `approvals:
  webhook: {url: "http://127.0.0.1:9/hook", signing_secret: ${SIGNING_SECRET}}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
  held:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]
    tools: {approval_list: [echo]}
`;

let gw: FileGateway;
let path: string;
let gateway: Gateway;
let app: FastifyInstance;

beforeAll(async () => {
  gw = await startFileGateway(
    (dir) => `config_reload: {enabled: false}
discovery:
  enabled: true
  refresh_interval_s: 3600
  sources:
    - {type: filesystem, mode: additive, path: ${JSON.stringify(join(dir, "servers.d"))}}
${SERVERS}`,
  );
  ({ path, gateway, app } = gw);
});
afterAll(async () => {
  await gw?.close();
});

type Method = "GET" | "POST" | "PUT" | "DELETE";
const send = (method: Method, url: string, payload?: object) =>
  app.inject({ method, url, ...(payload !== undefined && { payload }) });

describe("configuration routes", () => {
  it("refuse an unknown field on reload and reload nothing; config_path stays 422", async () => {
    // The file now declares one more server: a reload that ran would register it.
    writeFileSync(
      path,
      `config_reload: {enabled: false}\n${SERVERS}  text:\n    command: [node, ${JSON.stringify(TEXT)}]\n`,
    );
    expectUnknownField(
      await send("POST", "/api/config/reload", { graceful: true, dry_run: true }),
      "dry_run",
    );
    const withPath = await send("POST", "/api/config/reload", { config_path: path });
    expect(withPath.statusCode).toBe(422);
    expect(withPath.json().error.message).toContain("config_path");
    const badType = await send("POST", "/api/config/reload", { graceful: "yes" });
    expect([badType.statusCode, badType.json().error.details.issues[0].field]).toEqual([422, "graceful"]);
    expect(gateway.services.fleet.has("text")).toBe(false);
    const reloaded = await send("POST", "/api/config/reload", {});
    expect(reloaded.statusCode).toBe(200);
    expect(gateway.services.fleet.has("text")).toBe(true);
  });

  it("refuse an unknown field on export and backup, and write no backup", async () => {
    expectUnknownField(await send("POST", "/api/config/export", { format: "json" }), "format");
    expectUnknownField(await send("POST", "/api/config/backup", { keep: 3 }), "keep");
    expect(existsSync(`${path}.bak1`)).toBe(false);
  });
});

describe("discovery sources", () => {
  const preview = (response: { headers: Record<string, unknown> }) => response.headers["x-gateway-preview"];

  it("refuse an unknown field on registration, after the spec's 400 checks, and register nothing", async () => {
    const missing = await send("POST", "/api/discovery/sources", { mode: "additive", colour: "red" });
    expect([missing.statusCode, missing.json().error]).toEqual([400, "missing_fields"]);
    const mode = await send("POST", "/api/discovery/sources", {
      source_type: "docker",
      mode: "exclusive",
      colour: "red",
    });
    expect([mode.statusCode, mode.json().error]).toEqual([400, "invalid_mode"]);
    const unknown = await send("POST", "/api/discovery/sources", {
      source_type: "docker",
      mode: "additive",
      colour: "red",
    });
    expectUnknownField(unknown, "colour");
    expect(preview(unknown)).toBe("discovery-source-management");
    const sources = gateway.services.discovery?.sources() ?? [];
    expect(sources.map((source) => source.id)).toEqual(["filesystem"]);
  });

  it("refuse an unknown field on update, enable, scan and delete, and change nothing", async () => {
    const created = await send("POST", "/api/discovery/sources", { source_type: "docker", mode: "additive" });
    expect(created.statusCode).toBe(201);
    const id = created.json().source_id as string;
    expectUnknownField(
      await send("PUT", `/api/discovery/sources/${id}`, { mode: "authoritative", x: 1 }),
      "x",
    );
    expectUnknownField(
      await send("PUT", `/api/discovery/sources/${id}/enable`, { enabled: false, source_id: "filesystem" }),
      "source_id",
    );
    expectUnknownField(await send("POST", `/api/discovery/sources/${id}/scan`, { deep: true }), "deep");
    expectUnknownField(await send("DELETE", `/api/discovery/sources/${id}`, { purge: true }), "purge");
    expect((await send("PUT", `/api/discovery/sources/${id}/enable`, { enabled: "no" })).statusCode).toBe(
      422,
    );
    // Still there, still enabled: enabling again answers the same, and deleting it works once.
    expect((await send("PUT", `/api/discovery/sources/${id}/enable`, { enabled: true })).json()).toEqual({
      source_id: id,
      enabled: true,
    });
    expect((await send("DELETE", `/api/discovery/sources/${id}`)).statusCode).toBe(200);
  });

  it("refuse a body naming approve on the approve and reject routes", async () => {
    expectUnknownField(await send("POST", "/api/discovery/approve/nothing", { approve: false }), "approve");
    expectUnknownField(await send("POST", "/api/discovery/reject/nothing", { approve: true }), "approve");
    const plain = await send("POST", "/api/discovery/approve/nothing");
    expect(plain.json()).toMatchObject({ approved: false, mcp_server: "nothing" });
  });
});

describe("governance routes", () => {
  it("refuse an unknown field on withdraw and restore, withdrawing nothing", async () => {
    const withdrawals = gateway.services.governance?.withdrawals;
    expectUnknownField(
      await send("POST", "/api/admin/tools/math/add/withdraw", { tenant_id: "t1", scope: "all" }),
      "scope",
    );
    expectUnknownField(
      await send("POST", "/api/admin/tools/math/add/withdraw", { tool: "multiply" }),
      "tool",
    );
    expect(withdrawals?.isWithdrawn("math", "add", "t1")).toBe(false);
    expect(withdrawals?.isWithdrawn("math", "multiply", null)).toBe(false);
    expect((await send("POST", "/api/admin/tools/math/add/withdraw", { tenant_id: "t1" })).statusCode).toBe(
      200,
    );
    expectUnknownField(
      await send("POST", "/api/admin/tools/math/add/restore", { tenant_id: "t1", all: 1 }),
      "all",
    );
    expect(withdrawals?.isWithdrawn("math", "add", "t1")).toBe(true);
  });

  it("refuse an unknown field on suspend and resume", async () => {
    const sessions = gateway.services.governance?.sessions;
    expectUnknownField(await send("POST", "/api/sessions/s-1/suspend", { reason: "x", ttl: 60 }), "ttl");
    expect(sessions?.isSuspended("s-1")).toBe(false);
    expect((await send("POST", "/api/sessions/s-1/suspend", { reason: "x" })).statusCode).toBe(200);
    expectUnknownField(
      await send("DELETE", "/api/sessions/s-1/suspend", { session_id: "s-2" }),
      "session_id",
    );
    expect(sessions?.isSuspended("s-1")).toBe(true);
  });

  it("refuse an unknown field of an agent policy entry, keeping the policy in force", async () => {
    const agent = gateway.services.governance?.agent;
    const res = await send("POST", "/api/agent/policy", {
      version: 1,
      tool_policies: [{ mcp_server_id: "*", action: "deny", tool_name: "add", tenant: "t1" }],
    });
    expectUnknownField(res, "tool_policies.0.tenant");
    expect(agent?.version).toBe(0);
  });
});

describe("approval routes", () => {
  async function pending(id: string, channel = "event_stream"): Promise<void> {
    await gateway.services.repositories.approvals.create(
      pendingApproval({
        approval_id: id,
        mcp_server_id: "held",
        tool_name: "echo",
        arguments: { message: "x" },
        channel,
        call_deadline_at: Date.now() / 1000 - 1,
        requested_by: "anonymous",
      }),
    );
  }

  it("answer an unknown field with a flat 422 naming it and leave the approval pending", async () => {
    await pending("ap-1");
    for (const [body, field] of [
      [{ decision: "deny", note: "x" }, "note"],
      [{ decision: "deny", approval_id: "ap-2" }, "approval_id"],
    ] as const) {
      const res = await send("POST", "/api/approvals/ap-1/resolve", body);
      expect([res.statusCode, res.json()]).toEqual([
        422,
        { error: `Invalid field '${field}': ${UNKNOWN_FIELD_RULE}` },
      ]);
    }
    expect((await send("GET", "/api/approvals/ap-1")).json().state).toBe("pending");
  });

  it("keep 400 for a bad decision, and resolve with the fields the route takes", async () => {
    const bad = await send("POST", "/api/approvals/ap-1/resolve", { decision: "maybe" });
    expect([bad.statusCode, bad.json()]).toEqual([400, { error: "decision must be 'approve' or 'deny'" }]);
    const denied = await send("POST", "/api/approvals/ap-1/resolve", { decision: "deny", reason: "no" });
    expect([denied.statusCode, denied.json()]).toEqual([200, { approval_id: "ap-1", state: "denied" }]);
  });

  it("answer an unknown field of a signed callback with a flat 422, and a body naming the channel too", async () => {
    await pending("ap-hook", "webhook");
    const callback = (fields: Record<string, unknown>) => {
      const body = JSON.stringify(fields);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = `sha256=${createHmac("sha256", SIGNING_SECRET).update(`${timestamp}.${body}`).digest("hex")}`;
      return app.inject({
        method: "POST",
        url: "/hooks/approvals",
        headers: {
          "content-type": "application/json",
          "x-airlock-timestamp": timestamp,
          "x-airlock-signature": signature,
        },
        payload: body,
      });
    };
    for (const [extra, field] of [
      [{ note: "x" }, "note"],
      [{ channel: "slack" }, "channel"],
    ] as const) {
      const res = await callback({ approval_id: "ap-hook", decision: "approve", actor: "ops", ...extra });
      expect([res.statusCode, res.json()]).toEqual([
        422,
        { error: `Invalid field '${field}': ${UNKNOWN_FIELD_RULE}` },
      ]);
    }
    expect((await send("GET", "/api/approvals/ap-hook")).json().state).toBe("pending");
    const denied = await callback({ approval_id: "ap-hook", decision: "deny", actor: "ops" });
    expect([denied.statusCode, denied.json()]).toEqual([200, { approval_id: "ap-hook", state: "denied" }]);
  });
});
