import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createOpaPolicyEngine, OpaPolicyEngine } from "../../src/adapters/auth/opa-policy-engine.js";
import { memoryRepositories } from "../../src/adapters/store/memory/memory-repositories.js";
import { SystemClock } from "../../src/adapters/system/system-clock.js";
import { Authorizer } from "../../src/app/auth/authorizer.js";
import type { Logger } from "../../src/app/ports/logger.js";
import type { PolicyQuery } from "../../src/app/ports/policy-engine.js";
import { type OpaServer, startOpaServer } from "../support/opa-server.js";

const POLICY_PATH = "v1/data/mcp/authz/allow";

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, fields, message });
  };
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { logger, lines };
}

const QUERY: PolicyQuery = {
  principal: { id: "alice", type: "api_key", tenant_id: "acme", roles: ["developer"] },
  permission: "mcp_servers:read",
  resource_type: "mcp_servers",
  action: "read",
  resource_id: null,
  route: "GET /mcp_servers/",
};

let opa: OpaServer;
beforeAll(async () => {
  opa = await startOpaServer();
});
afterAll(async () => {
  await opa.close();
});
afterEach(() => {
  opa.requests.length = 0;
  opa.behave({ kind: "result", value: true });
});

const engine = (timeout = 2, url = opa.url, logger = recordingLogger().logger) =>
  new OpaPolicyEngine({ url, policy_path: POLICY_PATH, timeout }, logger);

describe("the OPA policy engine", () => {
  it("posts the input document to {url}/{policy_path} and allows on result true", async () => {
    expect(await engine().allows(QUERY)).toBe(true);
    expect(opa.requests).toEqual([
      {
        method: "POST",
        path: `/${POLICY_PATH}`,
        contentType: "application/json",
        authorization: undefined,
        body: { input: QUERY },
      },
    ]);
  });

  it("joins url and policy path with one slash whatever slashes they carry", async () => {
    const slashy = new OpaPolicyEngine(
      { url: `${opa.url}/`, policy_path: `/${POLICY_PATH}`, timeout: 2 },
      recordingLogger().logger,
    );
    expect(await slashy.allows(QUERY)).toBe(true);
    expect(opa.requests[0]?.path).toBe(`/${POLICY_PATH}`);
  });

  it("sends credentials of the URL as basic authorization, never in the URL", async () => {
    const withCredentials = engine(2, opa.url.replace("http://", "http://opa-user:s3cret@"));
    expect(await withCredentials.allows(QUERY)).toBe(true);
    expect(opa.requests[0]?.authorization).toBe(`Basic ${Buffer.from("opa-user:s3cret").toString("base64")}`);
  });

  it.each([
    ["false", false],
    ["the string true", "true"],
    ["the number 1", 1],
    ["null", null],
    ["an object", { allow: true }],
  ])("denies when result is %s", async (_label, value) => {
    opa.behave({ kind: "result", value });
    expect(await engine().allows(QUERY)).toBe(false);
  });

  it("denies when the answer has no result (an undefined policy)", async () => {
    opa.behave({ kind: "raw", status: 200, body: "{}" });
    expect(await engine().allows(QUERY)).toBe(false);
  });

  it.each([400, 403, 500, 503])("denies on HTTP %i even with result true in the body", async (status) => {
    opa.behave({ kind: "raw", status, body: JSON.stringify({ result: true }) });
    expect(await engine().allows(QUERY)).toBe(false);
  });

  it("denies on a redirect instead of following it", async () => {
    opa.behave({ kind: "raw", status: 307, body: "", headers: { location: `${opa.url}/elsewhere` } });
    expect(await engine().allows(QUERY)).toBe(false);
    expect(opa.requests.map((request) => request.path)).toEqual([`/${POLICY_PATH}`]);
  });

  it("denies on a body that is not JSON", async () => {
    opa.behave({ kind: "raw", status: 200, body: "result: true" });
    expect(await engine().allows(QUERY)).toBe(false);
  });

  it("denies on an oversized body", async () => {
    opa.behave({
      kind: "raw",
      status: 200,
      body: JSON.stringify({ result: true, pad: "x".repeat(100_000) }),
    });
    expect(await engine().allows(QUERY)).toBe(false);
  });

  it("denies when no answer comes within auth.opa.timeout", async () => {
    opa.behave({ kind: "slow", delayMs: 2_000 });
    const { logger, lines } = recordingLogger();
    const started = Date.now();
    expect(await engine(0.2, opa.url, logger).allows(QUERY)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(lines.find((line) => line.level === "warn")?.fields.reason).toBe("no answer within 0.2 s");
  });

  it("denies when the engine is unreachable, logging the endpoint without credentials or query", async () => {
    const port = await closedPort();
    const { logger, lines } = recordingLogger();
    const unreachable = engine(2, `http://opa-user:s3cret@127.0.0.1:${port}/base/?token=abc`, logger);
    expect(await unreachable.allows(QUERY)).toBe(false);
    const warning = lines.find((line) => line.level === "warn");
    expect(warning?.fields).toMatchObject({
      endpoint: `http://127.0.0.1:${port}/base/${POLICY_PATH}`,
      reason: "the engine is unreachable",
    });
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain("s3cret");
    expect(logged).not.toContain("token=abc");
    expect(logged).not.toContain("alice");
  });

  it("logs repeated failures once per interval with a count, not once per request", async () => {
    opa.behave({ kind: "raw", status: 500, body: "" });
    const { logger, lines } = recordingLogger();
    const failing = engine(2, opa.url, logger);
    for (let index = 0; index < 5; index++) expect(await failing.allows(QUERY)).toBe(false);
    expect(lines.filter((line) => line.level === "warn")).toHaveLength(1);
  });

  it("is created only when auth.opa.enabled is true", () => {
    const settings = { url: opa.url, policy_path: POLICY_PATH, timeout: 5 };
    expect(createOpaPolicyEngine({ ...settings, enabled: false }, recordingLogger().logger)).toBeNull();
    expect(createOpaPolicyEngine({ ...settings, enabled: true }, recordingLogger().logger)).toBeInstanceOf(
      OpaPolicyEngine,
    );
  });
});

describe("the Authorizer with the OPA policy engine", () => {
  const authorizer = () =>
    new Authorizer({
      repositories: memoryRepositories(),
      staticAssignments: [{ principal: "bob", role: "viewer", scope: "global" }],
      policyEngine: createOpaPolicyEngine(
        { enabled: true, url: opa.url, policy_path: POLICY_PATH, timeout: 2 },
        recordingLogger().logger,
      ),
      clock: new SystemClock(),
      logger: recordingLogger().logger,
    });
  const bob = { id: "bob", type: "api_key" as const, tenant_id: null, roles: [] };

  it("allows only when the roles and the engine both allow", async () => {
    opa.behave({ kind: "policy", allow: (input) => input.action === "read" });
    const decision = await authorizer().decide(bob, ["mcp_servers:read"], {
      tenantAware: false,
      route: "GET /mcp_servers/",
    });
    expect(decision).toMatchObject({ allowed: true, granted_by_role: "viewer" });
    expect(opa.requests[0]?.body).toEqual({
      input: {
        // The roles held: bob's credential declares none, the configuration assigns viewer.
        principal: { id: "bob", type: "api_key", tenant_id: null, roles: ["viewer"] },
        permission: "mcp_servers:read",
        resource_type: "mcp_servers",
        action: "read",
        resource_id: null,
        route: "GET /mcp_servers/",
      },
    });
  });

  it("denies what the roles allow when the engine says no", async () => {
    opa.behave({ kind: "result", value: false });
    const decision = await authorizer().decide(bob, ["mcp_servers:read"], { tenantAware: false });
    expect(decision.allowed).toBe(false);
  });

  it("never asks the engine when the roles already deny", async () => {
    const decision = await authorizer().decide(bob, ["mcp_servers:write"], { tenantAware: false });
    expect(decision.allowed).toBe(false);
    expect(opa.requests).toHaveLength(0);
  });
});

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
