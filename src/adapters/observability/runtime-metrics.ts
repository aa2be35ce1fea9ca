import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { DomainEvent } from "../../domain/events.js";

/** What the build-info gauge reports: the release, the source revision when known, Node's version. */
export interface BuildInfo {
  version: string;
  /** The source revision the release was built from; the label is left out when unknown. */
  revision?: string | undefined;
  node_version: string;
}

/** What the runtime gauges read at each scrape: the live fleet (calls in flight, each server's mode). */
export interface RuntimeSource {
  servers(): readonly { id: string; in_flight?: number }[];
  /** A server's mode (`subprocess`, `docker`, `remote`, ...), for the cold-start histogram. */
  mode?(id: string): string | undefined;
}

/** Why this replica stopped holding the management lease. */
export type LeaseLossReason = "shutdown" | "renewal_refused" | "renew_deadline_passed";

const PREFIX = "airlock_";
/**
 * Cold-start buckets (seconds): from a local process answering `initialize` in tens of milliseconds
 * to an image pulled and started near the start timeout.
 */
const START_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Reload buckets (seconds): a reload with nothing to restart to one that starts servers. */
const RELOAD_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The metrics of the gateway's own running: build info, calls in flight, cold starts, open MCP
 * sessions, configuration reloads and the management lease's losses. Scrape-time gauges read their
 * source only when scraped, so the tool-call path pays nothing for them (the in-flight count is the
 * fleet's own, kept for `least_connections` anyway).
 */
export class RuntimeMetrics {
  private readonly coldStarts: Histogram<"mcp_server" | "mode">;
  private readonly reloads: Counter<"outcome">;
  private readonly reloadDuration: Histogram;
  private readonly lastReloadSuccessful: Gauge;
  private readonly lastReloadSuccess: Gauge;
  private readonly leaseLosses: Counter<"reason">;
  private readonly leaseRenewalFailures: Counter;
  private sessions: (() => ReadonlyMap<string, number>) | null = null;

  constructor(
    registry: Registry,
    private readonly source: RuntimeSource,
    build: BuildInfo,
    /** Epoch seconds of the configuration loaded at start: the first successful load. */
    loadedAt: number,
  ) {
    const registers = [registry];
    const buildInfo = new Gauge({
      name: `${PREFIX}build_info`,
      help: "Always 1; the labels name the running release (version, source revision when known, Node.js version).",
      labelNames: ["version", "revision", "node_version"],
      registers,
    });
    buildInfo.set(
      {
        version: build.version,
        ...(build.revision && { revision: build.revision }),
        node_version: build.node_version,
      },
      1,
    );
    new Gauge({
      name: `${PREFIX}mcp_server_calls_in_flight`,
      help: "Calls an MCP server is answering now (sent upstream, not yet answered).",
      labelNames: ["mcp_server"],
      registers,
      collect() {
        this.reset();
        for (const server of source.servers()) this.set({ mcp_server: server.id }, server.in_flight ?? 0);
      },
    });
    this.coldStarts = new Histogram({
      name: `${PREFIX}mcp_server_cold_start_duration_seconds`,
      help: "Time from a start requested to the MCP server ready (connected, tools listed), by server and mode.",
      labelNames: ["mcp_server", "mode"],
      buckets: START_BUCKETS,
      registers,
    });
    const runtime = this;
    /** Revisions seen once stay at 0 when their last session ends, so a drop to none shows. */
    const seenRevisions = new Set<string>();
    new Gauge({
      name: `${PREFIX}mcp_sessions_open`,
      help: "MCP sessions of the gateway's own endpoint this replica holds, by negotiated protocol revision.",
      labelNames: ["protocol_version"],
      registers,
      collect() {
        const read = runtime.sessions;
        if (!read) return;
        const counts = read();
        for (const revision of counts.keys()) seenRevisions.add(revision);
        this.reset();
        for (const revision of seenRevisions)
          this.set({ protocol_version: revision }, counts.get(revision) ?? 0);
      },
    });
    this.reloads = new Counter({
      name: `${PREFIX}config_reloads_total`,
      help: "Configuration reloads by outcome (success, failure).",
      labelNames: ["outcome"],
      registers,
    });
    // Both outcomes show from the start, so `increase()` sees the first failure.
    for (const outcome of ["success", "failure"]) this.reloads.inc({ outcome }, 0);
    this.reloadDuration = new Histogram({
      name: `${PREFIX}config_reload_duration_seconds`,
      help: "Duration of successful configuration reloads (read, check, apply).",
      buckets: RELOAD_BUCKETS,
      registers,
    });
    this.lastReloadSuccessful = new Gauge({
      name: `${PREFIX}config_last_reload_successful`,
      help: "1 when the last configuration reload succeeded (or none was made since start), 0 after a failed one.",
      registers,
    });
    this.lastReloadSuccessful.set(1);
    this.lastReloadSuccess = new Gauge({
      name: `${PREFIX}config_last_reload_success_timestamp_seconds`,
      help: "Unix time of the last successful configuration load: the start, then each successful reload.",
      registers,
    });
    this.lastReloadSuccess.set(loadedAt);
    this.leaseLosses = new Counter({
      name: `${PREFIX}lease_losses_total`,
      help: "Times this replica stopped holding the management lease, by reason (shutdown, renewal_refused, renew_deadline_passed).",
      labelNames: ["reason"],
      registers,
    });
    this.leaseRenewalFailures = new Counter({
      name: `${PREFIX}lease_renewal_failures_total`,
      help: "Renewals of the management lease by this replica that failed (the store errored); the term holds until its renew deadline.",
      registers,
    });
  }

  /** Reads the open MCP sessions (by protocol revision) at each scrape. */
  trackSessions(read: () => ReadonlyMap<string, number>): void {
    this.sessions = read;
  }

  /** Counts a loss of the lease (`count` 0 makes the reason's series show before any loss). */
  leaseLost(reason: LeaseLossReason, count = 1): void {
    this.leaseLosses.inc({ reason }, count);
  }

  leaseRenewalFailed(): void {
    this.leaseRenewalFailures.inc();
  }

  observe(event: DomainEvent): void {
    switch (event.type) {
      case "McpServerStarted":
        this.coldStarts.observe(
          { mcp_server: event.mcp_server_id, mode: this.source.mode?.(event.mcp_server_id) ?? "unknown" },
          event.startup_duration_ms / 1000,
        );
        return;
      case "ConfigurationReloaded":
        this.reloads.inc({ outcome: "success" });
        this.reloadDuration.observe(event.reload_duration_ms / 1000);
        this.lastReloadSuccessful.set(1);
        this.lastReloadSuccess.set(event.occurred_at);
        return;
      case "ConfigurationReloadFailed":
        this.reloads.inc({ outcome: "failure" });
        this.lastReloadSuccessful.set(0);
        return;
      default:
        return;
    }
  }
}
