import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AutoRecovery } from "../../src/control/auto-recovery.js";
import { GatewayError } from "../../src/domain/errors.js";
import { controllable, type FleetHarness, ManualClock, makeFleet } from "../support/fleet.js";
import { FAILS_TO_START, waitFor } from "../support/gateway.js";

const DRIFTING = resolve("test/fixtures/servers/drifting.mjs");

let harness: FleetHarness | null = null;
const quiet = { info() {}, warn() {}, error() {}, debug() {} };
/** Run after each test, once its harness closed (temporary folders). */
const cleanups: (() => void)[] = [];

afterEach(async () => {
  await harness?.close();
  harness = null;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const call = (
  h: FleetHarness,
  id: string,
  tool: string,
  args: Record<string, unknown> = {},
  timeoutMs = 5000,
) => h.invoker.call(h.fleet.require(id), tool, args, { callId: "c", timeoutMs });

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
};

describe("health checks", () => {
  it("move a ready server to degraded after max_consecutive_failures failed checks, and a passing one back", async () => {
    harness = makeFleet({ clock: new ManualClock() });
    const server = harness.fleet.register(controllable("ctl", { max_consecutive_failures: 2 }));
    await harness.fleet.start(server, true);
    await call(harness, "ctl", "set_listing_failure", { failing: true });

    expect(await harness.fleet.checkHealth(server)).toBe(false);
    expect(server.lifecycle.state).toBe("ready");
    expect(await harness.fleet.checkHealth(server)).toBe(false);
    expect(server.lifecycle.state).toBe("degraded");
    expect(harness.events.find((e) => e.type === "McpServerDegraded")).toMatchObject({
      reason: "health_check_failures",
      consecutive_failures: 2,
    });

    await call(harness, "ctl", "set_listing_failure", { failing: false });
    expect(await harness.fleet.checkHealth(server)).toBe(true);
    expect(server.lifecycle).toMatchObject({ state: "ready", consecutive_failures: 0 });
  });
});

describe("crashes and the retry backoff", () => {
  it("fail the in-flight call, mark the server dead at once, and refuse calls until the backoff ends", async () => {
    const clock = new ManualClock();
    harness = makeFleet({ clock });
    const server = harness.fleet.register(controllable("ctl"));
    await harness.fleet.start(server, true);

    const crash = await refusal(call(harness, "ctl", "crash"));
    expect(crash.message).toMatch(/connection closed|exited with code 3/);
    await waitFor(() => server.lifecycle.state === "dead");
    const diedAt = clock.now() / 1000;
    expect(server.lifecycle.dead).toEqual({
      reason: "crashed",
      since: diedAt,
      retry_allowed_at: diedAt + 2,
      revived_by: "call_or_start",
    });

    clock.advance(1_500);
    expect((await refusal(call(harness, "ctl", "echo", { message: "x" }))).type).toBe("CircuitBreakerOpen");

    clock.advance(600);
    const { result } = await call(harness, "ctl", "echo", { message: "back" });
    expect(result.content[0]).toMatchObject({ text: "back" });
    expect(server.lifecycle.state).toBe("ready");
  });

  it("a failed start is dead (start_failed) below the limit and degraded at it, with the error type as reason", async () => {
    harness = makeFleet({ clock: new ManualClock() });
    const server = harness.fleet.register(
      controllable("broken", { command: ["node", FAILS_TO_START], max_consecutive_failures: 2 }),
    );
    expect((await refusal(harness.fleet.start(server, true))).type).toBe("CannotStartMcpServerError");
    expect(server.lifecycle.state).toBe("dead");
    expect(server.lifecycle.dead?.reason).toBe("start_failed");
    await refusal(harness.fleet.start(server, true));
    expect(server.lifecycle.state).toBe("degraded");
    expect(harness.events.find((e) => e.type === "McpServerDegraded")).toMatchObject({
      reason: "CannotStartMcpServerError",
    });
    expect((await refusal(call(harness, "broken", "echo"))).type).toBe("McpServerDegradedError");
  });
});

describe("the idle reaper", () => {
  it("stops a ready server unused for idle_ttl_s with reason idle", async () => {
    const clock = new ManualClock();
    harness = makeFleet({ clock });
    const server = harness.fleet.register(controllable("ctl", { idle_ttl_s: 30 }));
    await harness.fleet.start(server, true);
    clock.advance(29_000);
    expect(await harness.fleet.reapIdle()).toEqual([]);
    clock.advance(2_000);
    expect(await harness.fleet.reapIdle()).toEqual(["ctl"]);
    expect(server.lifecycle).toMatchObject({ state: "cold", last_stop_reason: "idle" });
    expect(server.alive).toBe(false);
    expect(harness.events.filter((e) => e.type === "McpServerStopped").at(-1)).toMatchObject({
      reason: "idle",
    });
  });
});

describe("block", () => {
  it("stops the server with reason detection_enforcement:block and refuses every later start", async () => {
    harness = makeFleet();
    const server = harness.fleet.register(controllable("ctl"));
    await harness.fleet.start(server, true);
    await harness.fleet.block(server);
    expect(harness.events.filter((e) => e.type === "McpServerStopped").at(-1)).toMatchObject({
      reason: "detection_enforcement:block",
    });
    expect((await refusal(harness.fleet.start(server, true))).type).toBe("CannotStartMcpServerError");
    expect((await refusal(call(harness, "ctl", "echo", { message: "x" }))).type).toBe(
      "CannotStartMcpServerError",
    );
  });
});

describe("declared capabilities", () => {
  it("kill a server exposing undeclared tools under enforcement block: dead with capability_blocked", async () => {
    harness = makeFleet();
    const server = harness.fleet.register(
      controllable("ctl", { capabilities: { tools: ["echo", "sleep"], enforcement_mode: "block" } }),
    );
    const error = await refusal(harness.fleet.start(server, true));
    expect(error.message).toContain("crash");
    expect(server.lifecycle.dead).toMatchObject({
      reason: "capability_blocked",
      retry_allowed_at: null,
      revived_by: "start",
    });
    expect(server.alive).toBe(false);
    expect((await refusal(call(harness, "ctl", "echo", { message: "x" }))).type).toBe("CircuitBreakerOpen");
  });

  /** The drifting server with its four tools declared, started; `appear()` makes `extra` appear. */
  async function driftingWithDeclaredTools(mode: "block" | "warn") {
    const h = makeFleet();
    harness = h;
    const dir = mkdtempSync(join(tmpdir(), "airlock-caps-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const marker = join(dir, "extra");
    const server = h.fleet.register({
      ...controllable("drift"),
      command: ["node", DRIFTING],
      env: { DRIFT_EXTRA_TOOL_FILE: marker },
      capabilities: { tools: ["lookup", "query", "bad_header", "stable"], enforcement_mode: mode },
    });
    await h.fleet.start(server, true);
    return { h, server, appear: () => writeFileSync(marker, "") };
  }

  it("kill a server under block whose undeclared tool appears after start, at the next health check", async () => {
    const { h, server, appear } = await driftingWithDeclaredTools("block");
    expect(await h.fleet.checkHealth(server)).toBe(true);

    appear();
    expect(await h.fleet.checkHealth(server)).toBe(false);
    expect(server.lifecycle.state).toBe("dead");
    expect(server.lifecycle.dead?.reason).toBe("capability_blocked");
    expect(server.alive).toBe(false);
    expect(server.tools?.map((tool) => tool.name)).not.toContain("extra");
    expect(h.events.filter((event) => event.type === "HealthCheckPassed")).toHaveLength(1);
    expect((await refusal(call(h, "drift", "extra", {}))).type).toBe("CircuitBreakerOpen");
  });

  it("report a tool that appears after start once under enforcement warn, and keep serving", async () => {
    const { h, server, appear } = await driftingWithDeclaredTools("warn");
    appear();
    expect(await h.fleet.checkHealth(server)).toBe(true);
    expect(await h.fleet.checkHealth(server)).toBe(true);
    expect(server.lifecycle.state).toBe("ready");
    const reports = server.logs
      .tail(50)
      .filter((line) => line.content.includes("undeclared tools (warn): extra"));
    expect(reports).toHaveLength(1);
  });

  it.each([
    ["block", ""],
    ["warn", "2"],
  ] as const)(
    "hold configured env variables to a declared environment under %s",
    async (mode, undeclaredValue) => {
      const h = makeFleet();
      harness = h;
      const server = h.fleet.register({
        ...controllable("ctl"),
        env: { DECLARED_A: "1", OTHER_B: "2" },
        capabilities: { environment: { variables: ["DECLARED_*"] }, enforcement_mode: mode },
      });
      await h.fleet.start(server, true);
      const received = async (name: string) => {
        const { result } = await call(h, "ctl", "env", { name });
        return (result.content?.[0] as { text?: string } | undefined)?.text;
      };
      expect(await received("DECLARED_A")).toBe("1");
      expect(await received("OTHER_B")).toBe(undeclaredValue);
      expect(
        server.logs
          .tail(50)
          .some((l) => l.content.includes(`undeclared environment variables (${mode}): OTHER_B`)),
      ).toBe(true);
    },
  );

  it("only report undeclared tools under enforcement warn", async () => {
    harness = makeFleet();
    const server = harness.fleet.register(
      controllable("ctl", { capabilities: { tools: ["e*"], enforcement_mode: "warn" } }),
    );
    await harness.fleet.start(server, true);
    expect(server.lifecycle.state).toBe("ready");
    expect(server.logs.tail(50).some((l) => l.content.includes("undeclared tools (warn)"))).toBe(true);
  });
});

describe("limits on the call path", () => {
  it("refuse a call over the server's concurrency budget at once", async () => {
    harness = makeFleet();
    harness.fleet.register(controllable("ctl", { max_concurrency: 1 }));
    await harness.fleet.start(harness.fleet.require("ctl"), true);
    const slow = call(harness, "ctl", "sleep", { ms: 500 });
    const refused = await refusal(call(harness, "ctl", "echo", { message: "x" }));
    expect(refused.type).toBe("TenantQuotaExceeded");
    expect(refused.details).toMatchObject({ budget: "mcp_server:ctl", reason: "concurrency", limit: 1 });
    // Refused before reaching the upstream, it is still recorded as an invocation.
    expect(harness.events.filter((e) => e.type === "ToolInvocationFailed").at(-1)).toMatchObject({
      mcp_server_id: "ctl",
      tool_name: "echo",
      error_type: "TenantQuotaExceeded",
    });
    expect(harness.fleet.require("ctl").stats.total_failures).toBe(0);
    await slow;
    await call(harness, "ctl", "echo", { message: "free again" });
  });

  it("refuse a call over the process-wide budget at once", async () => {
    harness = makeFleet({ maxConcurrency: 1 });
    harness.fleet.register(controllable("a"));
    harness.fleet.register(controllable("b"));
    await harness.fleet.start(harness.fleet.require("a"), true);
    await harness.fleet.start(harness.fleet.require("b"), true);
    const slow = call(harness, "a", "sleep", { ms: 500 });
    expect((await refusal(call(harness, "b", "echo", { message: "x" }))).details).toMatchObject({
      budget: "global",
    });
    await slow;
  });

  it("fail a response over max_response_bytes with ResponseTooLarge, the server's value beating execution's", async () => {
    harness = makeFleet({ maxResponseBytes: 1_000_000 });
    harness.fleet.register(controllable("ctl", { max_response_bytes: 200 }));
    const ok = await call(harness, "ctl", "echo", { message: "short" });
    expect(ok.sizeBytes).toBeLessThan(200);
    const error = await refusal(call(harness, "ctl", "echo", { message: "é".repeat(150) }));
    expect(error.type).toBe("ResponseTooLarge");
    expect(harness.events.at(-1)).toMatchObject({
      type: "ToolInvocationFailed",
      error_type: "ResponseTooLarge",
    });
  });

  it("time a call out at its timeout", async () => {
    harness = makeFleet();
    harness.fleet.register(controllable("ctl"));
    const error = await refusal(call(harness, "ctl", "sleep", { ms: 3000 }, 300));
    expect(error.type).toBe("ToolTimeoutError");
  });
});

describe("predefined tools", () => {
  it("are listed with digests without starting the server", async () => {
    harness = makeFleet();
    const server = harness.fleet.register(
      controllable("ctl", {
        predefined_tools: [{ name: "echo", description: "Return it", inputSchema: { type: "object" } }],
      }),
    );
    const tools = await harness.fleet.tools(server, true);
    expect(tools).toEqual([
      {
        name: "echo",
        description: "Return it",
        inputSchema: { type: "object" },
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
    expect(server.lifecycle.state).toBe("cold");
    expect(server.alive).toBe(false);
  });
});

describe("automatic recovery", () => {
  it("restarts a crashed server", async () => {
    harness = makeFleet();
    const recovery = new AutoRecovery({
      fleet: harness.fleet,
      bus: harness.bus,
      logger: console as never,
      delayMs: () => 50,
    });
    recovery.start();
    try {
      const server = harness.fleet.register(controllable("ctl"));
      await harness.fleet.start(server, true);
      await refusal(call(harness, "ctl", "crash"));
      await waitFor(() => server.lifecycle.state === "ready" && server.alive);
    } finally {
      recovery.stop();
    }
  });

  it("gives up after three failed retries: dead with reason given_up", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "airlock-recovery-")), "refuse");
    harness = makeFleet();
    const recovery = new AutoRecovery({
      fleet: harness.fleet,
      bus: harness.bus,
      logger: quiet,
      delayMs: () => 20,
    });
    recovery.start();
    try {
      const server = harness.fleet.register(controllable("ctl", { env: { CTL_FAIL_IF_EXISTS: marker } }));
      await harness.fleet.start(server, true);
      writeFileSync(marker, "");
      await refusal(call(harness, "ctl", "crash"));
      await waitFor(() => server.lifecycle.dead?.reason === "given_up", 15_000);
      expect(server.lifecycle.dead).toMatchObject({ retry_allowed_at: null, revived_by: "start" });
      const starts = harness.events.filter(
        (e) => e.type === "ProviderStateChanged" && e.new_state === "initializing",
      );
      expect(starts.length).toBe(4);
    } finally {
      recovery.stop();
    }
  });
});

describe("races between starts, stops and calls", () => {
  it("a stop during a start abandons it, and the next start succeeds", async () => {
    harness = makeFleet();
    const server = harness.fleet.register(controllable("ctl"));
    const first = harness.fleet.start(server, true);
    await harness.fleet.stopServer(server, "user_request");
    expect((await refusal(first)).message).toMatch(/abandoned/);
    expect(server.lifecycle.state).toBe("cold");
    await harness.fleet.start(server, true);
    expect(server.lifecycle.state).toBe("ready");
    expect(server.alive).toBe(true);
  });

  it("a call arriving while an idle stop closes the server starts a fresh instance", async () => {
    const clock = new ManualClock();
    harness = makeFleet({ clock });
    const server = harness.fleet.register(controllable("ctl", { idle_ttl_s: 1 }));
    await harness.fleet.start(server, true);
    clock.advance(2_000);
    const reaping = harness.fleet.reapIdle();
    const { result } = await call(harness, "ctl", "echo", { message: "still served" });
    expect(result.content[0]).toMatchObject({ text: "still served" });
    expect(await reaping).toEqual(["ctl"]);
    expect(server.lifecycle.state).toBe("ready");
  });

  it("concurrent starts share one attempt", async () => {
    harness = makeFleet();
    const server = harness.fleet.register(controllable("ctl"));
    await Promise.all([harness.fleet.start(server, true), harness.fleet.start(server, false)]);
    expect(harness.events.filter((e) => e.type === "McpServerStarted")).toHaveLength(1);
  });

  it("a degraded server is started again by a call once its backoff has elapsed", async () => {
    const clock = new ManualClock();
    harness = makeFleet({ clock });
    const marker = join(mkdtempSync(join(tmpdir(), "airlock-degraded-")), "refuse");
    writeFileSync(marker, "");
    const server = harness.fleet.register(
      controllable("ctl", { env: { CTL_FAIL_IF_EXISTS: marker }, max_consecutive_failures: 1 }),
    );
    await refusal(harness.fleet.start(server, true));
    expect(server.lifecycle.state).toBe("degraded");
    const inside = await refusal(call(harness, "ctl", "echo", { message: "x" }));
    expect(inside.type).toBe("McpServerDegradedError");
    expect(inside.message).toMatch(/backoff not elapsed, retry in \d/);
    rmSync(marker);
    clock.advance(2_100);
    const { result } = await call(harness, "ctl", "echo", { message: "recovered" });
    expect(result.content[0]).toMatchObject({ text: "recovered" });
    expect(server.lifecycle.state).toBe("ready");
  });
});
