import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../support/api-keys.js";
import {
  ARITHMETIC,
  type FileGateway,
  fleetYaml,
  startFileGateway,
  startTestGateway,
  type TestGateway,
} from "../support/gateway.js";

/** `GET /api/observability/alerts`: alerts derived from the state of a running gateway. */

interface Alert {
  level: string;
  type: string;
  subject_type: string;
  subject_id: string | null;
  message: string;
  since: string | null;
  details: Record<string, unknown>;
}
interface Answer {
  alerts: Alert[];
  count: number;
  by_level: Record<string, number>;
}

describe("alerts of a gateway with a server that fails to start", () => {
  let gw: TestGateway;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    gw = await startTestGateway(`
auth:
  enabled: true
  rate_limit: {max_attempts: 100000}
  role_assignments:
    - {principal: root, role: admin}
    - {principal: vic, role: viewer}
    - {principal: dev, role: developer}
${fleetYaml()}`);
    for (const name of ["root", "vic", "dev"]) keys[name] = await createApiKey(gw, name);
  });
  afterAll(async () => {
    await gw?.close();
  });

  const request = (method: "GET" | "POST", url: string, payload?: object) =>
    gw.app.inject({
      method,
      url,
      headers: { "x-api-key": keys.root as string },
      ...(payload && { payload }),
    });
  const alerts = async (query = "", key = keys.vic as string): Promise<Answer> => {
    const res = await gw.app.inject({
      method: "GET",
      url: `/api/observability/alerts${query}`,
      headers: { "x-api-key": key },
    });
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  const brokenOf = (answer: Answer) => answer.alerts.filter((a) => a.subject_id === "broken");

  it("raises nothing for a fleet of cold servers", async () => {
    const answer = await alerts();
    expect(answer).toMatchObject({ alerts: [], count: 0, by_level: { critical: 0, warning: 0, info: 0 } });
  });

  it("raises a critical server_dead once the server failed to start, with since and the reason", async () => {
    const before = Date.now();
    const start = await request("POST", "/api/mcp_servers/broken/start");
    expect(start.statusCode).toBe(500);
    const answer = await alerts();
    expect(brokenOf(answer)).toEqual([
      {
        level: "critical",
        type: "server_dead",
        subject_type: "mcp_server",
        subject_id: "broken",
        message: expect.stringContaining("MCP server 'broken' is dead (start_failed)"),
        since: expect.any(String),
        details: { reason: "start_failed", retry_allowed_at: expect.any(String) },
      },
    ]);
    const since = Date.parse(brokenOf(answer)[0]?.since ?? "");
    expect(since).toBeGreaterThanOrEqual(before - 1_000);
    expect(since).toBeLessThanOrEqual(Date.now());
    expect(answer.by_level.critical).toBe(1);
  });

  it("keeps it to its level: level=critical lists it, level=warning and level=info do not", async () => {
    expect(brokenOf(await alerts("?level=critical"))).toHaveLength(1);
    const warning = await alerts("?level=warning");
    expect(brokenOf(warning)).toEqual([]);
    expect(warning.alerts.every((a) => a.level === "warning")).toBe(true);
    // The counts by level are of every alert in force, whatever the filter.
    expect(warning.by_level.critical).toBe(1);
    expect(brokenOf(await alerts("?level=info"))).toEqual([]);
    expect(brokenOf(await alerts("?level="))).toHaveLength(1);
  });

  it("refuses another level with 422 naming level", async () => {
    for (const level of ["fatal", "CRITICAL", "warning,info"]) {
      const res = await gw.app.inject({
        method: "GET",
        url: `/api/observability/alerts?level=${encodeURIComponent(level)}`,
        headers: { "x-api-key": keys.vic as string },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({
        code: "ValidationError",
        message: "Invalid field 'level': must be one of critical, warning, info",
      });
    }
  });

  it("warns of a group without members, and ends the alert when its state ends", async () => {
    expect((await request("POST", "/api/groups/", { group_id: "pool" })).statusCode).toBe(201);
    const warning = (await alerts("?level=warning")).alerts.filter((a) => a.subject_id === "pool");
    expect(warning.map((a) => [a.type, a.subject_type])).toEqual([["group_no_members", "group"]]);
    expect((await request("POST", "/api/groups/pool/members", { member_id: "math" })).statusCode).toBe(201);
    expect((await alerts()).alerts.filter((a) => a.subject_id === "pool")).toEqual([]);
  });

  it("refuses a key without metrics:read (403)", async () => {
    const res = await gw.app.inject({
      method: "GET",
      url: "/api/observability/alerts",
      headers: { "x-api-key": keys.dev as string },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toBe("Access denied: metrics:read permission required");
  });
});

describe("alerts of a failed configuration reload", () => {
  let gw: FileGateway;
  const good = `mcp_servers:\n  math:\n    command: [node, ${JSON.stringify(ARITHMETIC)}]\nconfig_reload:\n  enabled: false\n`;

  beforeAll(async () => {
    gw = await startFileGateway(good, { mcpConfig: null });
  });
  afterAll(async () => {
    await gw?.close();
  });

  const reloadAlerts = async () => {
    const res = await gw.app.inject({ method: "GET", url: "/api/observability/alerts?level=warning" });
    return (res.json() as Answer).alerts.filter((a) => a.type === "config_reload_failed");
  };

  it("warns while the last reload failed, without its reason, and stops once a reload succeeds", async () => {
    expect(await reloadAlerts()).toEqual([]);
    writeFileSync(gw.path, "mcp_servers: [not, a, mapping\n");
    const failed = await gw.app.inject({ method: "POST", url: "/api/config/reload" });
    expect(failed.statusCode).toBe(422);
    const [alert] = await reloadAlerts();
    expect(alert).toMatchObject({ level: "warning", subject_type: "config", subject_id: null });
    expect(Date.parse(alert?.since ?? "")).not.toBeNaN();
    expect(JSON.stringify(alert)).not.toContain(gw.path);
    writeFileSync(gw.path, good);
    expect((await gw.app.inject({ method: "POST", url: "/api/config/reload" })).statusCode).toBe(200);
    expect(await reloadAlerts()).toEqual([]);
  });
});
