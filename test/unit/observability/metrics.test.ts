import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PromGatewayMetrics } from "../../../src/adapters/observability/metrics.js";
import type { LeaseLossReason } from "../../../src/adapters/observability/runtime-metrics.js";
import { PromTelemetryHealth } from "../../../src/adapters/observability/telemetry-health.js";
import { EventBus } from "../../../src/app/event-bus.js";
import { countRateLimitRefusal, feedMetrics } from "../../../src/app/observability/metrics-feed.js";
import { GatewayError } from "../../../src/domain/errors.js";
import type { DomainEventPayload } from "../../../src/domain/events.js";

/** Every metric name in the first column of a table of docs/metrics.md. */
function documentedMetrics(): string[] {
  const doc = readFileSync("docs/metrics.md", "utf8");
  return [...doc.matchAll(/^\| `([a-z_]+)` +\|/gm)].map((match) => match[1] as string);
}

/** Names of metrics with at least one sample in a text exposition (histograms by their `_count`). */
function sampledMetrics(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || line.trim() === "") continue;
    const name = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)/)?.[1];
    if (!name) continue;
    names.add(name);
    names.add(name.replace(/_(bucket|count|sum)$/, ""));
  }
  return names;
}

function newBus() {
  let n = 0;
  return new EventBus({
    clock: { now: () => 1_700_000_000_000, monotonic: () => 0 } as never,
    ids: { uuid: () => `id-${++n}`, timeOrderedUuid: () => `id-${++n}`, hex: () => "ab" } as never,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    instanceId: "test",
  });
}

const TRAFFIC: DomainEventPayload[] = [
  {
    type: "ToolInvocationCompleted",
    mcp_server_id: "math",
    tool_name: "add",
    call_id: "c1",
    duration_ms: 12,
    result_size_bytes: 4,
  },
  {
    type: "ToolInvocationCompleted",
    mcp_server_id: "math",
    tool_name: "divide",
    call_id: "c5",
    duration_ms: 2,
    result_size_bytes: 40,
    is_error: true,
  },
  { type: "McpServerStarted", mcp_server_id: "math", tools_count: 4, startup_duration_ms: 750 },
  {
    type: "ConfigurationReloaded",
    config_path: "/etc/airlock/config.yaml",
    mcp_servers_added: [],
    mcp_servers_removed: [],
    mcp_servers_updated: ["math"],
    mcp_servers_unchanged: [],
    reload_duration_ms: 30,
    requested_by: "admin",
  },
  {
    type: "ConfigurationReloadFailed",
    config_path: "/etc/airlock/config.yaml",
    reason: "mcp_servers.math.command: required",
    requested_by: "admin",
  },
  {
    type: "ToolInvocationFailed",
    mcp_server_id: "math",
    tool_name: "divide",
    call_id: "c2",
    duration_ms: 3,
    error_type: "ToolError",
    error_message: "x",
  },
  {
    type: "ToolInvocationFailed",
    mcp_server_id: "math",
    tool_name: "add",
    call_id: "c3",
    duration_ms: 0,
    error_type: "TenantQuotaExceeded",
    error_message: "q",
    limit: { budget: "tenant:acme", reason: "concurrency" },
  },
  { type: "ProviderStateChanged", mcp_server_id: "math", old_state: "cold", new_state: "initializing" },
  { type: "HealthCheckPassed", mcp_server_id: "math", duration_ms: 2 },
  { type: "HealthCheckFailed", mcp_server_id: "math", consecutive_failures: 1, error: "timeout" },
  { type: "CircuitBreakerOpened", group_id: "pool", consecutive_failures: 3 },
  {
    type: "CircuitBreakerClosed",
    group_id: "pool",
    trigger: "rebalance" as never,
    serviceable_in_rotation: 2,
  },
  {
    type: "ToolApprovalRequested",
    approval_id: "a1",
    mcp_server_id: "math",
    tool_name: "add",
    arguments: {},
    arguments_hash: "h",
    channel: "event_stream",
    expires_at: 1,
    requested_by: "u",
    tenant_id: null,
    source: "approval_list",
  },
  {
    type: "ToolApprovalGranted",
    approval_id: "a1",
    mcp_server_id: "math",
    tool_name: "add",
    tenant_id: null,
    decided_by: "admin",
    decided_at: 1,
  },
  {
    type: "EgressPolicyEnforced",
    mcp_server_id: "math",
    tool_name: "add",
    call_id: "c4",
    requested_by: "u",
    tenant_id: null,
    policy_id: "p",
    mode: "Enforce",
    verdict: "deny",
    enforced: true,
    decided_by: "tools.deny:add",
    reasons: [],
    secret_groups: [],
    payload_bytes: 10,
  },
  {
    type: "DigestMismatchEvent",
    mcp_server_id: "math",
    tool_name: "add",
    pinned_digest: "a",
    observed_digest: "b",
    tenant_id: null,
    declared_on: "math",
    enforcement: "block" as never,
  },
  {
    type: "DiscoveryCycleCompleted",
    source_id: "filesystem",
    source_type: "filesystem",
    mcp_servers_found: 2,
    registered: 1,
    updated: 0,
    deregistered: 0,
    quarantined: 1,
    failed: false,
  },
];

function fedMetrics() {
  const metrics = new PromGatewayMetrics(
    {
      servers: () => [{ id: "math", state: "ready", in_flight: 2 }],
      mode: (id) => (id === "math" ? "subprocess" : undefined),
      groups: () => [{ id: "pool", state: "partial", circuit_open: true }],
    },
    {
      build: { version: "1.2.3", revision: "abc123", node_version: "v24.0.0" },
      configLoadedAt: 1_600_000_000,
    },
  );
  const bus = newBus();
  feedMetrics(bus, metrics);
  let announce: (change: { leader: boolean; reason?: LeaseLossReason }) => void = () => {};
  let renewalFailed = () => {};
  metrics.trackCoordination({
    leadership: {
      isLeader: true,
      onChange: (listener) => {
        announce = listener;
      },
      onRenewalFailure: (listener) => {
        renewalFailed = listener;
      },
    },
    replicationLagSeconds: () => 0.25,
  });
  metrics.trackSessions(() => new Map([["2025-06-18", 3]]));
  announce({ leader: true });
  renewalFailed();
  announce({ leader: false, reason: "renewal_refused" });
  bus.publish(TRAFFIC);
  metrics.observeHttpRequest({
    method: "GET",
    route: "/api/mcp_servers/:id",
    status_code: 200,
    duration_seconds: 0.01,
  });
  countRateLimitRefusal(
    metrics,
    new GatewayError("RateLimitExceeded", "slow down", { budget: "gateway_call" }),
  );
  // The telemetry export's own counters join the registry, as the gateway's composition does.
  const telemetry = new PromTelemetryHealth();
  telemetry.register(metrics.registry);
  telemetry.exportFailed("traces");
  telemetry.spansDropped("queue_full", 3);
  return metrics;
}

describe("gateway metrics registry", () => {
  it("emits a sample of every metric documented in docs/metrics.md after traffic", async () => {
    const documented = documentedMetrics();
    expect(documented.length).toBeGreaterThan(15);
    const sampled = sampledMetrics(await fedMetrics().exposition());
    const missing = documented.filter((name) => !sampled.has(name));
    expect(missing).toEqual([]);
  });

  it("counts tool calls by server, tool and status, refusals as denied with their budget and reason", async () => {
    const text = await fedMetrics().exposition();
    expect(text).toContain('airlock_tool_calls_total{mcp_server="math",tool="add",status="success"} 1');
    expect(text).toContain('airlock_tool_calls_total{mcp_server="math",tool="divide",status="failure"} 1');
    expect(text).toContain('airlock_tool_calls_total{mcp_server="math",tool="add",status="denied"} 1');
    expect(text).toContain('airlock_limit_refusals_total{budget="tenant:acme",reason="concurrency"} 1');
    expect(text).toContain('airlock_limit_refusals_total{budget="gateway_call",reason="rate"} 1');
    expect(text).toContain('airlock_mcp_server_state{mcp_server="math",state="ready"} 1');
    expect(text).toContain('airlock_mcp_server_state{mcp_server="math",state="cold"} 0');
    expect(text).toContain('airlock_circuit_breaker_open{group="pool"} 1');
    expect(text).toContain('airlock_egress_verdicts_total{mode="Enforce",verdict="deny",enforced="true"} 1');
    expect(text).toContain('airlock_approvals_decided_total{decision="granted"} 1');
    expect(text).toContain(`airlock_events_appended_total ${TRAFFIC.length}`);
    expect(text).toContain("airlock_lease_holder 1");
    expect(text).toContain('airlock_lease_transitions_total{transition="lost"} 1');
    expect(text).toContain('airlock_lease_transitions_total{transition="acquired"} 1');
    expect(text).toContain("airlock_replication_lag_seconds 0.25");
    expect(text).toContain('airlock_telemetry_export_failures_total{signal="traces"} 1');
    expect(text).toContain('airlock_spans_dropped_total{reason="queue_full"} 3');
  });

  it("summarises tool calls keyed <server>.<tool> with errors by type", () => {
    const summary = fedMetrics().summary();
    expect(summary.tool_calls["math.add"]).toMatchObject({ count: 2, success: 1, denied: 1, failure: 0 });
    // A tool's own error result stays a success in the JSON forms, as in the audit trail.
    expect(summary.tool_calls["math.divide"]).toMatchObject({ count: 2, failure: 1, success: 1 });
    expect(summary.errors).toEqual({ ToolError: 1, TenantQuotaExceeded: 1 });
    expect(summary.performance).toMatchObject({ total_calls: 4, max_duration_ms: 12, avg_duration_ms: 4.25 });
  });

  it("labels a tool's own error result tool_error, apart from success, failure and denied", async () => {
    const metrics = fedMetrics();
    const text = await metrics.exposition();
    expect(text).toContain('airlock_tool_calls_total{mcp_server="math",tool="divide",status="tool_error"} 1');
    expect(text).toContain('airlock_tool_calls_total{mcp_server="math",tool="divide",status="failure"} 1');
    expect(text).not.toContain('tool="divide",status="success"');
    expect(text).toMatch(
      /airlock_tool_call_duration_seconds_count\{mcp_server="math",tool="divide",status="tool_error"\} 1/,
    );
    // No error type: the server answered; the JSON totals count it among the successes.
    expect(text).toContain('airlock_tool_call_errors_total{mcp_server="math",error_type="ToolError"} 1');
    const totals = await metrics.callTotals();
    expect(totals).toEqual([
      expect.objectContaining({ mcp_server: "math", success: 2, failure: 1, denied: 1 }),
    ]);
  });

  it("reports the build, calls in flight, cold starts, open sessions, reloads and lease losses", async () => {
    const text = await fedMetrics().exposition();
    expect(text).toContain('airlock_build_info{version="1.2.3",revision="abc123",node_version="v24.0.0"} 1');
    expect(text).toContain('airlock_mcp_server_calls_in_flight{mcp_server="math"} 2');
    expect(text).toContain(
      'airlock_mcp_server_cold_start_duration_seconds_count{mcp_server="math",mode="subprocess"} 1',
    );
    expect(text).toContain(
      'airlock_mcp_server_cold_start_duration_seconds_sum{mcp_server="math",mode="subprocess"} 0.75',
    );
    expect(text).toContain('airlock_mcp_sessions_open{protocol_version="2025-06-18"} 3');
    expect(text).toContain('airlock_config_reloads_total{outcome="success"} 1');
    expect(text).toContain('airlock_config_reloads_total{outcome="failure"} 1');
    expect(text).toContain("airlock_config_reload_duration_seconds_sum 0.03");
    // The failure came last; the last success is the reload's time (the bus dates it).
    expect(text).toContain("airlock_config_last_reload_successful 0");
    expect(text).toContain("airlock_config_last_reload_success_timestamp_seconds 1700000000");
    expect(text).toContain('airlock_lease_losses_total{reason="renewal_refused"} 1');
    expect(text).toContain('airlock_lease_losses_total{reason="shutdown"} 0');
    expect(text).toContain("airlock_lease_renewal_failures_total 1");
  });

  it("leaves the revision out of the build info when it is unknown, and starts reloads at the first load", async () => {
    const metrics = new PromGatewayMetrics(
      { servers: () => [], groups: () => [] },
      { processMetrics: false, build: { version: "1.2.3", node_version: "v24.0.0" }, configLoadedAt: 42 },
    );
    const text = await metrics.exposition();
    expect(text).toContain('airlock_build_info{version="1.2.3",node_version="v24.0.0"} 1');
    expect(text).toContain('airlock_config_reloads_total{outcome="failure"} 0');
    expect(text).toContain("airlock_config_last_reload_successful 1");
    expect(text).toContain("airlock_config_last_reload_success_timestamp_seconds 42");
    // Without a lease there is nothing to lose; without an endpoint no session.
    expect(text).not.toContain("airlock_lease_losses_total{");
    expect(text).not.toContain("airlock_mcp_sessions_open{");
  });

  it("keeps a protocol revision's session series at 0 once its last session ends", async () => {
    const metrics = new PromGatewayMetrics(
      { servers: () => [], groups: () => [] },
      { processMetrics: false },
    );
    let open = new Map([["2025-06-18", 1]]);
    metrics.trackSessions(() => open);
    expect(await metrics.exposition()).toContain(
      'airlock_mcp_sessions_open{protocol_version="2025-06-18"} 1',
    );
    open = new Map();
    expect(await metrics.exposition()).toContain(
      'airlock_mcp_sessions_open{protocol_version="2025-06-18"} 0',
    );
  });

  it("keeps two registries apart: a second gateway does not see the first one's calls", async () => {
    fedMetrics();
    const fresh = new PromGatewayMetrics({ servers: () => [], groups: () => [] }, { processMetrics: false });
    expect(await fresh.exposition()).not.toContain("airlock_tool_calls_total{");
  });
});
