import { GatewayError, notFound } from "../../domain/errors.js";
import { matchesAny } from "../../domain/policy/fnmatch.js";
import { applyTrigger, type LifecycleTrigger, startRefusal } from "../../domain/server/lifecycle.js";
import type { ServerMode, ServerSpec, ToolSchema } from "../../domain/server/server-spec.js";
import { digestSubject } from "../../domain/server/tool-digest.js";
import type { EventBus } from "../event-bus.js";
import type { Clock } from "../ports/clock.js";
import type { Hasher } from "../ports/hasher.js";
import type { Logger } from "../ports/logger.js";
import type { UpstreamFactory } from "../ports/upstream.js";
import { ManagedServer, type ToolInfo } from "./managed-server.js";
import { upstreamFailure } from "./upstream-failure.js";

export interface FleetTimings {
  /** Spawn + initialize + tools/list of one start. */
  startTimeoutMs: number;
  /** Decisions: a health check is `tools/list` with a 5 s timeout. */
  healthCheckTimeoutMs: number;
}

export interface FleetDeps {
  factories: Partial<Record<ServerMode, UpstreamFactory>>;
  bus: EventBus;
  clock: Clock;
  hasher: Hasher;
  logger: Logger;
  /** Uniform in [0, 1): spreads retry backoffs. */
  random: () => number;
  timings: FleetTimings;
  /** `execution.default_mcp_server_concurrency`: calls at once per server without its own limit. */
  defaultServerConcurrency: number;
}

/**
 * The registered servers of this replica and everything that changes their state: start, stop,
 * calls, health checks, idle stops. Every state change goes through the domain transition table
 * and publishes the events it emits.
 */
export class Fleet {
  private readonly servers = new Map<string, ManagedServer>();
  private closing = false;

  constructor(private readonly deps: FleetDeps) {}

  list(): ManagedServer[] {
    return [...this.servers.values()];
  }

  get(id: string): ManagedServer | undefined {
    return this.servers.get(id);
  }

  require(id: string): ManagedServer {
    const server = this.servers.get(id);
    if (!server) throw notFound(id);
    return server;
  }

  has(id: string): boolean {
    return this.servers.has(id);
  }

  register(spec: ServerSpec): ManagedServer {
    const server = this.create(spec);
    this.deps.bus.publish([
      { type: "McpServerRegistered", mcp_server_id: spec.id, mode: spec.mode, source: spec.source },
    ]);
    return server;
  }

  /** Replaces the spec of a server; a running instance is stopped first and the new one is cold. */
  async replace(spec: ServerSpec, changedFields: string[]): Promise<ManagedServer> {
    const old = this.require(spec.id);
    await this.stopServer(old, "config_updated");
    const server = this.create(spec);
    this.deps.bus.publish([{ type: "McpServerUpdated", mcp_server_id: spec.id, fields: changedFields }]);
    return server;
  }

  private create(spec: ServerSpec): ManagedServer {
    const concurrency = spec.max_concurrency ?? this.deps.defaultServerConcurrency;
    const server = new ManagedServer(spec, () => this.deps.clock.now(), concurrency);
    if (spec.predefined_tools?.length) server.tools = spec.predefined_tools.map((t) => this.withDigest(t));
    this.servers.set(spec.id, server);
    return server;
  }

  /** Changes settings that need no restart (description, env for the next start, timers). */
  amend(server: ManagedServer, patch: Partial<Omit<ServerSpec, "id" | "mode" | "source">>): void {
    server.spec = { ...server.spec, ...patch };
    this.deps.bus.publish([
      { type: "McpServerUpdated", mcp_server_id: server.id, fields: Object.keys(patch) },
    ]);
  }

  async remove(id: string): Promise<void> {
    const server = this.require(id);
    await this.stopServer(server, "removed");
    this.servers.delete(id);
    this.deps.bus.publish([{ type: "McpServerRemoved", mcp_server_id: id }]);
  }

  /**
   * Starts a server and returns its tools. `deliberate` (REST start, start tool) revives a dead
   * server at once; a tool call (`deliberate: false`) is refused inside the retry backoff.
   */
  async start(server: ManagedServer, deliberate: boolean): Promise<ToolInfo[]> {
    if (server.connection && server.lifecycle.state === "ready") return server.tools ?? [];
    if (server.starting) return server.starting;
    if (this.closing) throw new GatewayError("McpServerNotReadyError", "The gateway is shutting down");
    const refusal = startRefusal(server.lifecycle, deliberate, this.nowS());
    if (refusal?.kind === "blocked") {
      throw new GatewayError("CannotStartMcpServerError", `MCP server '${server.id}' is blocked`, {
        mcp_server_id: server.id,
      });
    }
    if (refusal?.kind === "backoff") {
      throw new GatewayError(
        "CircuitBreakerOpen",
        `MCP server '${server.id}' is dead; retry allowed after its backoff`,
        { mcp_server_id: server.id, retry_allowed_at: refusal.retry_allowed_at },
      );
    }
    server.starting = this.runStart(server, deliberate).finally(() => {
      server.starting = null;
    });
    return server.starting;
  }

  private async runStart(server: ManagedServer, deliberate: boolean): Promise<ToolInfo[]> {
    const factory = this.deps.factories[server.spec.mode];
    if (!factory) {
      throw new GatewayError("NotConfiguredError", `mode '${server.spec.mode}' is not available yet`, {
        mcp_server_id: server.id,
      });
    }
    // A degraded server may still hold a connection (failing health checks): replace it.
    await this.closeConnection(server);
    this.transition(server, { on: "start", deliberate });
    const began = this.deps.clock.monotonic();
    const timeoutMs = this.deps.timings.startTimeoutMs;
    try {
      const connection = await factory.connect(server.spec, server.logs, { timeoutMs });
      try {
        const tools = (await connection.listTools({ timeoutMs })).map((t) => this.withDigest(t));
        if (this.closing || server.lifecycle.state !== "initializing") throw new Error("start abandoned");
        const undeclared = undeclaredTools(server.spec, tools);
        if (undeclared.length > 0 && this.enforceCapabilities(server, undeclared)) {
          await connection.close().catch(() => undefined);
          this.transition(server, { on: "capability_blocked" });
          throw new GatewayError(
            "CannotStartMcpServerError",
            `MCP server '${server.id}' exposes tools outside its declared capabilities: ${undeclared.join(", ")}`,
            { mcp_server_id: server.id, undeclared_tools: undeclared },
          );
        }
        server.connection = connection;
        server.tools = tools;
        server.startedAt = this.deps.clock.now();
        server.lastUsedMono = this.deps.clock.monotonic();
        connection.onClosed((reason) => this.onConnectionLost(server, connection, reason));
        this.transition(server, {
          on: "start_succeeded",
          tools_count: tools.length,
          duration_ms: Math.round(this.deps.clock.monotonic() - began),
        });
        return tools;
      } catch (error) {
        await connection.close().catch(() => undefined);
        throw error;
      }
    } catch (error) {
      if (error instanceof GatewayError && server.lifecycle.state === "dead") throw error;
      const failure = upstreamFailure(error, "CannotStartMcpServerError");
      server.logs.append("stderr", `[airlock] start failed: ${failure.message}`);
      this.deps.logger.warn(
        { mcp_server_id: server.id, error: failure.message },
        "MCP server failed to start",
      );
      if (server.lifecycle.state === "initializing") {
        this.transition(server, {
          on: "start_failed",
          error_type: failure.type,
          max_consecutive_failures: server.spec.max_consecutive_failures,
        });
      }
      throw new GatewayError(
        "CannotStartMcpServerError",
        `Failed to start MCP server '${server.id}': ${failure.message}`,
        { mcp_server_id: server.id },
      );
    }
  }

  private onConnectionLost(server: ManagedServer, connection: unknown, reason: string): void {
    if (server.connection !== connection) return;
    server.connection = null;
    server.logs.append("stderr", `[airlock] connection lost: ${reason}`);
    this.deps.logger.warn({ mcp_server_id: server.id, reason }, "MCP server connection lost");
    this.transition(server, { on: "crashed" });
  }

  /** Stops a server (any state); returns whether a running instance was stopped. */
  async stopServer(
    server: ManagedServer,
    reason: string,
    trigger: "stop" | "idle" = "stop",
  ): Promise<boolean> {
    const wasRunning = server.connection !== null || server.starting !== null;
    await this.closeConnection(server);
    this.transition(server, trigger === "idle" ? { on: "idle" } : { on: "stop", reason });
    return wasRunning;
  }

  /** Stops a server for good (reason `detection_enforcement:block`); later starts are refused. */
  async block(server: ManagedServer): Promise<void> {
    await this.closeConnection(server);
    this.transition(server, { on: "block" });
  }

  private async closeConnection(server: ManagedServer): Promise<void> {
    const connection = server.connection;
    server.connection = null;
    if (connection) await connection.close().catch(() => undefined);
  }

  /** Lists tools: the known ones, or (when `startIfCold`) after starting a cold server. */
  async tools(server: ManagedServer, startIfCold: boolean): Promise<ToolInfo[]> {
    if (server.tools && (server.connection || !startIfCold || server.spec.predefined_tools?.length)) {
      return server.tools;
    }
    if (startIfCold && server.lifecycle.state !== "dead") return this.start(server, false);
    return server.tools ?? [];
  }

  /** One health check of a ready server: `tools/list` within the health-check timeout. */
  async checkHealth(server: ManagedServer): Promise<boolean> {
    const connection = server.connection;
    if (!connection || server.lifecycle.state === "initializing") return false;
    const began = this.deps.clock.monotonic();
    try {
      const tools = await connection.listTools({ timeoutMs: this.deps.timings.healthCheckTimeoutMs });
      server.tools = tools.map((t) => this.withDigest(t));
      this.transition(server, {
        on: "health_passed",
        duration_ms: Math.round(this.deps.clock.monotonic() - began),
      });
      return true;
    } catch (error) {
      const failure = upstreamFailure(error, "ToolInvocationError", this.deps.timings.healthCheckTimeoutMs);
      this.transition(server, {
        on: "health_failed",
        error: failure.message,
        max_consecutive_failures: server.spec.max_consecutive_failures,
      });
      return false;
    }
  }

  /** Stops ready servers unused for their `idle_ttl_s`. */
  async reapIdle(): Promise<string[]> {
    const now = this.deps.clock.monotonic();
    const stopped: string[] = [];
    for (const server of this.servers.values()) {
      if (server.lifecycle.state !== "ready" || server.inFlight > 0 || server.starting) continue;
      if (now - server.lastUsedMono < server.spec.idle_ttl_s * 1000) continue;
      await this.stopServer(server, "idle", "idle");
      stopped.push(server.id);
    }
    return stopped;
  }

  /** Stops every server; later starts are refused. */
  async shutdown(): Promise<void> {
    this.closing = true;
    await Promise.all(
      [...this.servers.values()].map(async (server) => {
        await server.starting?.catch(() => undefined);
        await this.stopServer(server, "shutdown");
      }),
    );
  }

  /** Reports a capability violation; true when the contract says to block the server. */
  private enforceCapabilities(server: ManagedServer, undeclared: string[]): boolean {
    const mode = server.spec.capabilities?.enforcement_mode ?? "block";
    const fields = { mcp_server_id: server.id, undeclared_tools: undeclared, enforcement_mode: mode };
    server.logs.append("stderr", `[airlock] undeclared tools (${mode}): ${undeclared.join(", ")}`);
    if (mode === "audit") this.deps.logger.info(fields, "MCP server exposes undeclared tools");
    else this.deps.logger.warn(fields, "MCP server exposes undeclared tools");
    return mode === "block";
  }

  /** Feeds one trigger to the lifecycle table; false when the table has no row for it. */
  transition(server: ManagedServer, trigger: LifecycleTrigger): boolean {
    const jitter = this.deps.random() * 2 - 1;
    const result = applyTrigger(server.id, server.lifecycle, trigger, this.nowS(), jitter);
    if (!result) return false;
    server.lifecycle = result.lifecycle;
    this.deps.bus.publish(result.events);
    return true;
  }

  private withDigest(tool: ToolSchema): ToolInfo {
    const digest = this.deps.hasher.sha256Hex(this.deps.hasher.canonicalJson(digestSubject(tool)));
    return { ...tool, digest };
  }

  private nowS(): number {
    return this.deps.clock.now() / 1000;
  }
}

/** Tools outside a declared `capabilities.tools` list (nothing when the list is not declared). */
function undeclaredTools(spec: ServerSpec, tools: readonly ToolInfo[]): string[] {
  const declared = spec.capabilities?.tools;
  if (!declared) return [];
  return tools.filter((tool) => !matchesAny(tool.name, declared)).map((tool) => tool.name);
}
