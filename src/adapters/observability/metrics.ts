import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type {
  CallTotals,
  GatewayMetrics,
  HttpRequestSample,
  LimitRefusal,
  ToolCallSample,
  ToolCallStats,
  ToolCallSummary,
} from "../../app/ports/gateway-metrics.js";
import type { DomainEvent } from "../../domain/events.js";
import { GROUP_STATES } from "../../domain/group/group-state.js";
import { SERVER_STATES } from "../../domain/server/lifecycle.js";
import {
  type BuildInfo,
  type LeaseLossReason,
  RuntimeMetrics,
  type RuntimeSource,
} from "./runtime-metrics.js";

/** What the state gauges read at each scrape: the live fleet, so a server never started shows too. */
export interface StateSource extends RuntimeSource {
  servers(): readonly { id: string; state: string; in_flight?: number }[];
  groups(): readonly { id: string; state: string; circuit_open: boolean }[];
}

/** prom-client's default gauges whose sums by type are left out (`nodejs_active_handles` has them). */
const GAUGES_NAMED_TOTAL = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
];

/** The lease losses' reasons, each shown from the start so that `increase()` sees the first one. */
const LEASE_LOSS_REASONS: readonly LeaseLossReason[] = [
  "shutdown",
  "renewal_refused",
  "renew_deadline_passed",
];

/** Metric name prefix: every gateway metric but Node's process metrics (their standard names). */
const PREFIX = "airlock_";
/**
 * Tool-call buckets (seconds): from a local stdio call (a few ms) to the 300 s call timeout ceiling
 * of `gateway_call`.
 */
const CALL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** HTTP buckets (seconds): REST and MCP requests; long MCP streams land in +Inf. */
const HTTP_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/**
 * Prometheus metrics of one gateway, in a registry of its own (never prom-client's global one, so
 * two gateways in one process never share or clash). Fed from the event bus through the app's
 * metrics feed; state gauges are read from the `StateSource` when scraped.
 */
export class PromGatewayMetrics implements GatewayMetrics {
  readonly registry = new Registry();
  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;
  private readonly toolCalls: Counter<"mcp_server" | "tool" | "status">;
  private readonly callDuration: Histogram<"mcp_server" | "tool" | "status">;
  private readonly callErrors: Counter<"mcp_server" | "error_type">;
  private readonly stateChanges: Counter<"mcp_server" | "from" | "to">;
  private readonly healthChecks: Counter<"mcp_server" | "result">;
  private readonly circuitChanges: Counter<"group" | "transition">;
  private readonly refusals: Counter<"budget" | "reason">;
  private readonly approvalsRequested: Counter<"source">;
  private readonly approvalsDecided: Counter<"decision">;
  private readonly egressVerdicts: Counter<"mode" | "verdict" | "enforced">;
  private readonly digestMismatches: Counter<"mcp_server" | "enforcement">;
  private readonly discoveryCycles: Counter<"source" | "outcome">;
  private readonly discoveryActions: Counter<"source" | "action">;
  private readonly httpDuration: Histogram<"method" | "route" | "status_code">;
  private readonly eventsAppended: Counter;
  private readonly leaseTransitions: Counter<"transition">;
  /** Build info, calls in flight, cold starts, sessions, reloads, lease losses. */
  private readonly runtime: RuntimeMetrics;
  /** Scrape-time reads wired once coordination and replication exist (`trackCoordination`). */
  private managesFleet: () => boolean = () => true;
  private replicationLag: (() => number) | null = null;
  /** Plain aggregates for the JSON form of `gateway_metrics` (reading prom-client's is async). */
  private readonly stats = new Map<string, ToolCallStats>();
  private readonly errors = new Map<string, number>();
  private maxDurationMs = 0;

  constructor(
    source: StateSource,
    options: {
      processMetrics?: boolean;
      /** The running release; defaults to version 0.0.0 on this process's Node.js. */
      build?: BuildInfo;
      /** Epoch seconds of the configuration's first load; defaults to now. */
      configLoadedAt?: number;
    } = {},
  ) {
    const registers = [this.registry];
    this.toolCalls = new Counter({
      name: `${PREFIX}tool_calls_total`,
      help: "Tool calls by server (the group for a routed call), tool and status (success, tool_error, failure, denied).",
      labelNames: ["mcp_server", "tool", "status"],
      registers,
    });
    this.callDuration = new Histogram({
      name: `${PREFIX}tool_call_duration_seconds`,
      help: "Duration of tool calls, by server, tool and status.",
      labelNames: ["mcp_server", "tool", "status"],
      buckets: CALL_BUCKETS,
      registers,
    });
    this.callErrors = new Counter({
      name: `${PREFIX}tool_call_errors_total`,
      help: "Failed or refused tool calls by server and error type.",
      labelNames: ["mcp_server", "error_type"],
      registers,
    });
    new Gauge({
      name: `${PREFIX}mcp_server_state`,
      help: "1 for the state each MCP server is in now, 0 for the others.",
      labelNames: ["mcp_server", "state"],
      registers,
      collect() {
        this.reset();
        for (const server of source.servers()) {
          for (const state of SERVER_STATES)
            this.set({ mcp_server: server.id, state }, server.state === state ? 1 : 0);
        }
      },
    });
    this.stateChanges = new Counter({
      name: `${PREFIX}mcp_server_state_transitions_total`,
      help: "MCP server state transitions.",
      labelNames: ["mcp_server", "from", "to"],
      registers,
    });
    this.healthChecks = new Counter({
      name: `${PREFIX}health_checks_total`,
      help: "Health checks of MCP servers by result (passed, failed).",
      labelNames: ["mcp_server", "result"],
      registers,
    });
    new Gauge({
      name: `${PREFIX}group_state`,
      help: "1 for the state each group is in now, 0 for the others.",
      labelNames: ["group", "state"],
      registers,
      collect() {
        this.reset();
        for (const group of source.groups()) {
          for (const state of GROUP_STATES)
            this.set({ group: group.id, state }, group.state === state ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: `${PREFIX}circuit_breaker_open`,
      help: "1 while a group's circuit breaker is open, else 0.",
      labelNames: ["group"],
      registers,
      collect() {
        this.reset();
        for (const group of source.groups()) this.set({ group: group.id }, group.circuit_open ? 1 : 0);
      },
    });
    this.circuitChanges = new Counter({
      name: `${PREFIX}circuit_breaker_transitions_total`,
      help: "Circuit breaker transitions of groups (opened, closed).",
      labelNames: ["group", "transition"],
      registers,
    });
    this.refusals = new Counter({
      name: `${PREFIX}limit_refusals_total`,
      help: "Calls refused by a rate limit or tenant quota, by budget and reason (rate, concurrency, no_budget).",
      labelNames: ["budget", "reason"],
      registers,
    });
    this.approvalsRequested = new Counter({
      name: `${PREFIX}approvals_requested_total`,
      help: "Tool calls held for a human approval, by what asked for the hold.",
      labelNames: ["source"],
      registers,
    });
    this.approvalsDecided = new Counter({
      name: `${PREFIX}approvals_decided_total`,
      help: "Approval outcomes (granted, denied, expired, cancelled).",
      labelNames: ["decision"],
      registers,
    });
    this.egressVerdicts = new Counter({
      name: `${PREFIX}egress_verdicts_total`,
      help: "L7 egress policy verdicts by mode, verdict and whether it was enforced.",
      labelNames: ["mode", "verdict", "enforced"],
      registers,
    });
    this.digestMismatches = new Counter({
      name: `${PREFIX}digest_mismatches_total`,
      help: "Tool digest drifts seen against pins, by server and enforcement.",
      labelNames: ["mcp_server", "enforcement"],
      registers,
    });
    this.discoveryCycles = new Counter({
      name: `${PREFIX}discovery_cycles_total`,
      help: "Discovery cycles by source id and outcome (ok, failed).",
      labelNames: ["source", "outcome"],
      registers,
    });
    this.discoveryActions = new Counter({
      name: `${PREFIX}discovery_servers_total`,
      help: "Discovered servers registered, updated, deregistered or quarantined, by source id.",
      labelNames: ["source", "action"],
      registers,
    });
    this.httpDuration = new Histogram({
      name: `${PREFIX}http_request_duration_seconds`,
      help: "HTTP request duration by method, route pattern and status code.",
      labelNames: ["method", "route", "status_code"],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.eventsAppended = new Counter({
      name: `${PREFIX}events_appended_total`,
      help: "Events this replica appended to the event store (queued for its batched commit).",
      registers,
    });
    const metrics = this;
    new Gauge({
      name: `${PREFIX}lease_holder`,
      help: "1 while this replica holds the management lease and manages the fleet (always 1 without coordination).",
      registers,
      collect() {
        this.set(metrics.managesFleet() ? 1 : 0);
      },
    });
    this.leaseTransitions = new Counter({
      name: `${PREFIX}lease_transitions_total`,
      help: "Changes of this replica's standing in the management lease (acquired, lost).",
      labelNames: ["transition"],
      registers,
    });
    new Gauge({
      name: `${PREFIX}replication_lag_seconds`,
      help: "Seconds since this replica last read the shared event log up to its head (0 without replication).",
      registers,
      collect() {
        this.set(metrics.replicationLag?.() ?? 0);
      },
    });
    this.runtime = new RuntimeMetrics(
      this.registry,
      source,
      options.build ?? { version: "0.0.0", node_version: process.version },
      options.configLoadedAt ?? Date.now() / 1000,
    );
    if (options.processMetrics !== false) {
      collectDefaultMetrics({ register: this.registry });
      // Gauges named like counters (Prometheus' naming rules, which `promtool check metrics`
      // enforces): the same counts are exposed by type under the names without `_total`.
      for (const name of GAUGES_NAMED_TOTAL) this.registry.removeSingleMetric(name);
    }
  }

  /** Reads the open MCP sessions of the gateway's endpoint, by protocol revision, at each scrape. */
  trackSessions(read: () => ReadonlyMap<string, number>): void {
    this.runtime.trackSessions(read);
  }

  /**
   * Follows the management lease (`airlock_lease_holder`, `airlock_lease_transitions_total`) and the
   * replication tail (`airlock_replication_lag_seconds`). Without them the replica is alone: it
   * holds the fleet and has no lag.
   */
  trackCoordination(parts: {
    leadership?: {
      readonly isLeader: boolean;
      onChange(listener: (change: { leader: boolean; reason?: LeaseLossReason }) => void): unknown;
      onRenewalFailure?(listener: () => void): unknown;
    };
    replicationLagSeconds?: () => number;
  }): void {
    const { leadership, replicationLagSeconds } = parts;
    if (leadership) {
      this.managesFleet = () => leadership.isLeader;
      for (const reason of LEASE_LOSS_REASONS) this.runtime.leaseLost(reason, 0);
      leadership.onChange((change) => {
        this.leaseTransitions.inc({ transition: change.leader ? "acquired" : "lost" });
        if (!change.leader) this.runtime.leaseLost(change.reason ?? "renew_deadline_passed");
      });
      leadership.onRenewalFailure?.(() => this.runtime.leaseRenewalFailed());
    }
    if (replicationLagSeconds) this.replicationLag = replicationLagSeconds;
  }

  observe(event: DomainEvent): void {
    // The recorder appends every event this replica publishes; peers' events never come here.
    this.eventsAppended.inc();
    this.runtime.observe(event);
    switch (event.type) {
      case "ProviderStateChanged":
        this.stateChanges.inc({
          mcp_server: event.mcp_server_id,
          from: event.old_state,
          to: event.new_state,
        });
        return;
      case "HealthCheckPassed":
        this.healthChecks.inc({ mcp_server: event.mcp_server_id, result: "passed" });
        return;
      case "HealthCheckFailed":
        this.healthChecks.inc({ mcp_server: event.mcp_server_id, result: "failed" });
        return;
      case "CircuitBreakerOpened":
        this.circuitChanges.inc({ group: event.group_id, transition: "opened" });
        return;
      case "CircuitBreakerClosed":
        this.circuitChanges.inc({ group: event.group_id, transition: "closed" });
        return;
      case "ToolApprovalRequested":
        this.approvalsRequested.inc({ source: event.source });
        return;
      case "ToolApprovalGranted":
        this.approvalsDecided.inc({ decision: "granted" });
        return;
      case "ToolApprovalDenied":
        this.approvalsDecided.inc({ decision: "denied" });
        return;
      case "ToolApprovalExpired":
        this.approvalsDecided.inc({ decision: "expired" });
        return;
      case "ToolApprovalCancelled":
        this.approvalsDecided.inc({ decision: "cancelled" });
        return;
      case "EgressPolicyEnforced":
        this.egressVerdicts.inc({
          mode: event.mode,
          verdict: event.verdict,
          enforced: String(event.enforced),
        });
        return;
      case "DigestMismatchEvent":
        this.digestMismatches.inc({ mcp_server: event.mcp_server_id, enforcement: event.enforcement });
        return;
      case "DiscoveryCycleCompleted":
        this.discoveryCycles.inc({ source: event.source_id, outcome: event.failed ? "failed" : "ok" });
        for (const action of ["registered", "updated", "deregistered", "quarantined"] as const) {
          if (event[action] > 0)
            this.discoveryActions.inc({ source: event.source_id, action }, event[action]);
        }
        return;
      default:
        return;
    }
  }

  observeToolCall(call: ToolCallSample): void {
    const labels = { mcp_server: call.mcp_server, tool: call.tool, status: call.status };
    this.toolCalls.inc(labels);
    this.callDuration.observe(labels, call.duration_ms / 1000);
    if (call.error_type !== null) {
      this.callErrors.inc({ mcp_server: call.mcp_server, error_type: call.error_type });
      this.errors.set(call.error_type, (this.errors.get(call.error_type) ?? 0) + 1);
    }
    const key = `${call.mcp_server}.${call.tool}`;
    const stats = this.stats.get(key) ?? {
      count: 0,
      success: 0,
      failure: 0,
      denied: 0,
      total_duration_ms: 0,
      avg_duration_ms: 0,
    };
    stats.count++;
    // The JSON forms keep the audit trail's three outcomes: a tool's own error result is a success.
    stats[call.status === "tool_error" ? "success" : call.status]++;
    stats.total_duration_ms += call.duration_ms;
    stats.avg_duration_ms = round(stats.total_duration_ms / stats.count);
    this.stats.set(key, stats);
    this.maxDurationMs = Math.max(this.maxDurationMs, call.duration_ms);
  }

  observeRefusal(refusal: LimitRefusal): void {
    this.refusals.inc({ budget: refusal.budget, reason: refusal.reason });
  }

  observeHttpRequest(sample: HttpRequestSample): void {
    this.httpDuration.observe(
      { method: sample.method, route: sample.route, status_code: String(sample.status_code) },
      sample.duration_seconds,
    );
  }

  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  async callTotals(): Promise<CallTotals[]> {
    const byServer = new Map<
      string,
      { success: number; failure: number; denied: number; buckets: Map<string, number> }
    >();
    for (const value of (await this.callDuration.get()).values) {
      // Bucket values carry `le` besides the histogram's own labels.
      const { mcp_server, status, le } = value.labels as Record<string, string | number | undefined>;
      const server = String(mcp_server);
      let totals = byServer.get(server);
      if (!totals) {
        totals = { success: 0, failure: 0, denied: 0, buckets: new Map() };
        byServer.set(server, totals);
      }
      // The JSON forms keep the audit trail's three outcomes: a tool's own error result is a success.
      const outcome = status === "tool_error" ? "success" : status;
      if (outcome !== "success" && outcome !== "failure" && outcome !== "denied") continue;
      if (value.metricName?.endsWith("_count")) totals[outcome] += value.value;
      else if (value.metricName?.endsWith("_bucket") && outcome !== "denied") {
        const bound = String(le);
        totals.buckets.set(bound, (totals.buckets.get(bound) ?? 0) + value.value);
      }
    }
    return [...byServer].map(([mcp_server, { buckets, ...counts }]) => ({
      mcp_server,
      ...counts,
      latency_ms: [
        ...CALL_BUCKETS.map((le) => ({ le: toMs(le), count: buckets.get(String(le)) ?? 0 })),
        { le: Number.POSITIVE_INFINITY, count: buckets.get("+Inf") ?? 0 },
      ],
    }));
  }

  summary(): ToolCallSummary {
    let total = 0;
    let duration = 0;
    const tool_calls: Record<string, ToolCallStats> = {};
    for (const [key, stats] of this.stats) {
      tool_calls[key] = { ...stats };
      total += stats.count;
      duration += stats.total_duration_ms;
    }
    return {
      tool_calls,
      errors: Object.fromEntries(this.errors),
      performance: {
        total_calls: total,
        avg_duration_ms: total === 0 ? 0 : round(duration / total),
        max_duration_ms: this.maxDurationMs,
      },
    };
  }
}

/** A bucket bound of seconds in milliseconds, without binary-fraction noise (0.005 s is 5 ms). */
function toMs(seconds: number): number {
  return Math.round(seconds * 1_000_000) / 1000;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
