import { describe, expect, it } from "vitest";
import {
  applyTrigger,
  BLOCK_STOP_REASON,
  INITIAL_LIFECYCLE,
  type Lifecycle,
  type LifecycleTrigger,
  type ServerState,
  startRefusal,
} from "../../../src/domain/server/lifecycle.js";

const NOW = 1_000_000;
const at = (state: ServerState, extra: Partial<Lifecycle> = {}): Lifecycle => ({
  ...INITIAL_LIFECYCLE,
  state,
  ...extra,
});
const deadAt = (retryAt: number | null, revived: "start" | "call_or_start" = "call_or_start"): Lifecycle =>
  at("dead", {
    consecutive_failures: 1,
    dead: { reason: "crashed", since: NOW - 1, retry_allowed_at: retryAt, revived_by: revived },
  });

const start = (deliberate: boolean): LifecycleTrigger => ({ on: "start", deliberate });
const startFailed: LifecycleTrigger = {
  on: "start_failed",
  error_type: "CannotStartMcpServerError",
  max_consecutive_failures: 3,
};
const healthFailed: LifecycleTrigger = { on: "health_failed", error: "timeout", max_consecutive_failures: 3 };

describe("server lifecycle transition table", () => {
  const accepted: [string, Lifecycle, LifecycleTrigger, ServerState][] = [
    ["a cold server starts on a start request", at("cold"), start(true), "initializing"],
    ["a cold server starts on a tool call", at("cold"), start(false), "initializing"],
    [
      "a started server becomes ready",
      at("initializing"),
      { on: "start_succeeded", tools_count: 2, duration_ms: 5 },
      "ready",
    ],
    ["a ready server stops to cold", at("ready"), { on: "stop", reason: "user_request" }, "cold"],
    ["an idle ready server stops to cold", at("ready"), { on: "idle" }, "cold"],
    ["a ready server that crashes is dead", at("ready"), { on: "crashed" }, "dead"],
    ["a first failed start is dead (start_failed)", at("initializing"), startFailed, "dead"],
    [
      "a failed start at the failure limit is degraded",
      at("initializing", { consecutive_failures: 2 }),
      startFailed,
      "degraded",
    ],
    ["a failing health check below the limit keeps ready", at("ready"), healthFailed, "ready"],
    [
      "health failures reaching the limit degrade a ready server",
      at("ready", { consecutive_failures: 2 }),
      healthFailed,
      "degraded",
    ],
    [
      "a passing health check recovers a degraded server",
      at("degraded"),
      { on: "health_passed", duration_ms: 1 },
      "ready",
    ],
    ["a degraded server may be started again", at("degraded"), start(true), "initializing"],
    [
      "a deliberate start revives a dead server inside its backoff",
      deadAt(NOW + 30),
      start(true),
      "initializing",
    ],
    [
      "a tool call revives a dead server once its backoff elapsed",
      deadAt(NOW - 1),
      start(false),
      "initializing",
    ],
    ["block stops a ready server", at("ready"), { on: "block" }, "cold"],
    ["automatic recovery gives up on a cold server", at("cold"), { on: "gave_up" }, "dead"],
    ["undeclared tools kill a starting server", at("initializing"), { on: "capability_blocked" }, "dead"],
  ];

  it.each(accepted)("%s", (_name, from, trigger, to) => {
    const result = applyTrigger("s1", from, trigger, NOW);
    expect(result?.lifecycle.state).toBe(to);
  });

  const refused: [string, Lifecycle, LifecycleTrigger][] = [
    ["a tool call does not revive a dead server inside its backoff", deadAt(NOW + 30), start(false)],
    ["a tool call does not revive a server that only a start revives", deadAt(null, "start"), start(false)],
    ["a blocked server does not start", at("cold", { blocked: true }), start(true)],
    ["a cold server does not go idle", at("cold"), { on: "idle" }],
    ["a cold server does not crash", at("cold"), { on: "crashed" }],
    ["a ready server does not start again", at("ready"), start(true)],
    ["a cold server has no health checks", at("cold"), healthFailed],
  ];

  it.each(refused)("%s", (_name, from, trigger) => {
    expect(applyTrigger("s1", from, trigger, NOW)).toBeNull();
  });
});

describe("lifecycle effects", () => {
  it("every state change emits ProviderStateChanged with old and new state", () => {
    const result = applyTrigger("s1", at("cold"), start(true), NOW);
    expect(result?.events).toContainEqual({
      type: "ProviderStateChanged",
      mcp_server_id: "s1",
      old_state: "cold",
      new_state: "initializing",
    });
  });

  it("a stop records the reason and emits McpServerStopped with it", () => {
    const result = applyTrigger("s1", at("ready"), { on: "stop", reason: "maintenance" }, NOW);
    expect(result?.lifecycle.last_stop_reason).toBe("maintenance");
    expect(result?.events).toContainEqual({
      type: "McpServerStopped",
      mcp_server_id: "s1",
      reason: "maintenance",
    });
  });

  it("an idle stop records reason idle", () => {
    const result = applyTrigger("s1", at("ready"), { on: "idle" }, NOW);
    expect(result?.events).toContainEqual({ type: "McpServerStopped", mcp_server_id: "s1", reason: "idle" });
  });

  it("stopping a cold server emits no stop event", () => {
    const result = applyTrigger("s1", at("cold"), { on: "stop", reason: "user_request" }, NOW);
    expect(result?.events).toEqual([]);
  });

  it("a block marks the server permanently blocked with the enforcement reason", () => {
    const result = applyTrigger("s1", at("ready"), { on: "block" }, NOW);
    expect(result?.lifecycle.blocked).toBe(true);
    expect(result?.lifecycle.last_stop_reason).toBe(BLOCK_STOP_REASON);
    expect(startRefusal(result!.lifecycle, true, NOW)).toEqual({ kind: "blocked" });
  });

  it("a crash records reason crashed and a backoff of 2^failures seconds", () => {
    const result = applyTrigger("s1", at("ready"), { on: "crashed" }, NOW, 0);
    expect(result?.lifecycle.dead).toEqual({
      reason: "crashed",
      since: NOW,
      retry_allowed_at: NOW + 2,
      revived_by: "call_or_start",
    });
    expect(result?.events).toContainEqual({
      type: "McpServerDied",
      mcp_server_id: "s1",
      reason: "crashed",
      retry_allowed_at: NOW + 2,
    });
  });

  it("the backoff jitter stays within ten percent", () => {
    const low = applyTrigger("s1", at("ready"), { on: "crashed" }, NOW, -1)!.lifecycle.dead!
      .retry_allowed_at!;
    const high = applyTrigger("s1", at("ready"), { on: "crashed" }, NOW, 1)!.lifecycle.dead!
      .retry_allowed_at!;
    expect(low - NOW).toBeCloseTo(1.8);
    expect(high - NOW).toBeCloseTo(2.2);
  });

  it("the backoff is capped at sixty seconds", () => {
    const result = applyTrigger("s1", at("ready", { consecutive_failures: 10 }), { on: "crashed" }, NOW, 0);
    expect(result!.lifecycle.dead!.retry_allowed_at! - NOW).toBe(60);
  });

  it("a failed start at the limit emits McpServerDegraded with the error type as reason", () => {
    const result = applyTrigger("s1", at("initializing", { consecutive_failures: 2 }), startFailed, NOW);
    expect(result?.events).toContainEqual({
      type: "McpServerDegraded",
      mcp_server_id: "s1",
      reason: "CannotStartMcpServerError",
      consecutive_failures: 3,
    });
  });

  it("health failures degrade with reason health_check_failures", () => {
    const result = applyTrigger("s1", at("ready", { consecutive_failures: 2 }), healthFailed, NOW);
    expect(result?.events.find((e) => e.type === "McpServerDegraded")).toMatchObject({
      reason: "health_check_failures",
    });
  });

  it("a successful start clears failures and the dead record", () => {
    const result = applyTrigger(
      "s1",
      at("initializing", { consecutive_failures: 2 }),
      { on: "start_succeeded", tools_count: 1, duration_ms: 3 },
      NOW,
    );
    expect(result?.lifecycle).toMatchObject({ state: "ready", consecutive_failures: 0, dead: null });
    expect(result?.events).toContainEqual({
      type: "McpServerStarted",
      mcp_server_id: "s1",
      tools_count: 1,
      startup_duration_ms: 3,
    });
  });

  it("startRefusal reports the backoff end of a dead server", () => {
    expect(startRefusal(deadAt(NOW + 30), false, NOW)).toEqual({
      kind: "backoff",
      retry_allowed_at: NOW + 30,
    });
    expect(startRefusal(deadAt(NOW + 30), true, NOW)).toBeNull();
  });
});
