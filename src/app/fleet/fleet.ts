import { GatewayError, notFound } from "../../domain/errors.js";
import { jsonValueNestsDeeper, MAX_RELAYED_JSON_DEPTH } from "../../domain/limits/json-depth.js";
import { applyTrigger, type LifecycleTrigger, startRefusal } from "../../domain/server/lifecycle.js";
import type { ServerMode, ServerSpec, ToolSchema } from "../../domain/server/server-spec.js";
import { digestSubject } from "../../domain/server/tool-digest.js";
import type { EventBus } from "../event-bus.js";
import type { Clock } from "../ports/clock.js";
import type { Hasher } from "../ports/hasher.js";
import type { Logger } from "../ports/logger.js";
import type { UpstreamFactory, UpstreamPeer } from "../ports/upstream.js";
import { reportUndeclared, undeclared } from "./capability-contract.js";
import { GATEWAY_NOTE_PREFIX, type LogRing } from "./log-ring.js";
import { ManagedServer, type ToolInfo } from "./managed-server.js";
import { startFailure } from "./start-failure.js";
import type { StderrForwarder } from "./stderr-forwarder.js";
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
  /** `logging.forward_server_stderr`: every server's stderr to the gateway's log; absent: off. */
  stderrForwarder?: StderrForwarder | undefined;
}

/**
 * The registered servers of this replica and everything that changes their state: start, stop,
 * calls, health checks, idle stops. Every state change goes through the domain transition table
 * and publishes the events it emits.
 */
export class Fleet {
  private readonly servers = new Map<string, ManagedServer>();
  private readonly locks = new Map<string, Promise<void>>();
  /** Ids of servers blocked for good (`block`, `restoreBlocks`). */
  private readonly blockedIds = new Set<string>();
  private closing = false;
  private defaultServerConcurrency: number;

  constructor(private readonly deps: FleetDeps) {
    this.defaultServerConcurrency = deps.defaultServerConcurrency;
  }

  /**
   * `execution.default_mcp_server_concurrency` changed by a reload: every server without its own
   * `max_concurrency` takes it for its next calls; calls in progress finish.
   */
  setDefaultServerConcurrency(limit: number): void {
    this.defaultServerConcurrency = limit;
    for (const server of this.servers.values())
      if (server.spec.max_concurrency === undefined) server.budget.limit = limit;
  }

  /**
   * Runs `task` with no other task of the same id running in this process: registration, update
   * and delete of one server change the fleet and the store together, and must not interleave.
   */
  async exclusive<T>(id: string, task: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(id) ?? Promise.resolve();
    const run = previous.then(task);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(id, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(id) === tail) this.locks.delete(id);
    }
  }

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

  /** Servers ready now and declared in all, for the readiness probe. */
  readiness(): { ready: number; total: number } {
    let ready = 0;
    for (const server of this.servers.values()) if (server.lifecycle.state === "ready") ready++;
    return { ready, total: this.servers.size };
  }

  /** A server's recent output, to follow (`/ws/logs/:id`); undefined for an unknown id. */
  logsOf(id: string): LogRing | undefined {
    return this.servers.get(id)?.logs;
  }

  /**
   * Sets (null: clears) the way back from a server's upstream connection to the clients (the front
   * door's sessions). Nothing happens for an unknown id or a server without a connection.
   */
  setPeer(id: string, peer: UpstreamPeer | null): void {
    this.servers.get(id)?.connection?.setPeer(peer);
  }

  /** Ids of the servers with an upstream connection now, in registration order. */
  connectedIds(): string[] {
    const ids: string[] = [];
    for (const server of this.servers.values()) if (server.connection) ids.push(server.id);
    return ids;
  }

  /** Sends a client notification to every connected upstream; a failure to deliver is dropped. */
  notifyUpstreams(method: string, params: Record<string, unknown> | undefined): void {
    for (const server of this.servers.values()) {
      void server.connection?.notify(method, params).catch(() => undefined);
    }
  }

  /** An upstream said its tools changed: lists them again (a health check), for a known id. */
  relist(id: string): void {
    const server = this.servers.get(id);
    if (server) void this.checkHealth(server);
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

  /**
   * Takes in a server a peer replica registered or changed (read back from the shared store):
   * registered cold, or replacing this replica's copy (a running instance is stopped first). No
   * event is published: the peer published it already.
   */
  async adopt(spec: ServerSpec): Promise<void> {
    const old = this.servers.get(spec.id);
    if (old) await this.stopServer(old, "config_updated");
    this.create(spec);
  }

  /** Drops a server a peer replica removed, stopping this replica's instance; publishes nothing. */
  async forget(id: string): Promise<void> {
    const server = this.servers.get(id);
    if (!server) return;
    this.servers.delete(id);
    await this.stopServer(server, "removed");
  }

  private create(spec: ServerSpec): ManagedServer {
    const concurrency = spec.max_concurrency ?? this.defaultServerConcurrency;
    const server = new ManagedServer(spec, () => this.deps.clock.now(), concurrency);
    this.deps.stderrForwarder?.attach(server);
    if (spec.predefined_tools?.length) server.setTools(spec.predefined_tools.map((t) => this.withDigest(t)));
    // A cold server blocked at birth: no event, no start accepted.
    if (this.blockedIds.has(spec.id)) this.transition(server, { on: "block" });
    this.servers.set(spec.id, server);
    return server;
  }

  /**
   * Ids blocked for good, as the store keeps them: the servers registered under them (now or later,
   * by a reload, a new registration) are blocked, whatever instance replaced the blocked one.
   */
  restoreBlocks(ids: Iterable<string>): void {
    for (const id of ids) {
      this.blockedIds.add(id);
      const server = this.servers.get(id);
      if (server && !server.lifecycle.blocked) this.transition(server, { on: "block" });
    }
  }

  /** Forgets a block: the server of that id was deleted, and a new one may take its id. */
  forgetBlock(id: string): void {
    this.blockedIds.delete(id);
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
    // Gone from the registry first: a call arriving meanwhile cannot start it again.
    this.servers.delete(id);
    await this.stopServer(server, "removed");
    this.deps.bus.publish([{ type: "McpServerRemoved", mcp_server_id: id }]);
  }

  /**
   * Starts a server and returns its tools. `deliberate` (REST start, start tool) revives a dead or
   * degraded server at once; a tool call (`deliberate: false`) is refused inside the retry backoff.
   * Concurrent starts share one attempt; a stop abandons it.
   */
  async start(server: ManagedServer, deliberate: boolean): Promise<readonly ToolInfo[]> {
    if (server.connection && server.lifecycle.state === "ready") return server.tools ?? [];
    if (server.starting) return server.starting;
    if (this.closing) throw new GatewayError("McpServerNotReadyError", "The gateway is shutting down");
    if (this.servers.get(server.id) !== server) throw notFound(server.id);
    this.refuseStart(server, deliberate);
    const attempt = this.runStart(server, deliberate);
    server.starting = attempt;
    void attempt.then(
      () => this.clearStarting(server, attempt),
      () => this.clearStarting(server, attempt),
    );
    return attempt;
  }

  private clearStarting(server: ManagedServer, attempt: Promise<readonly ToolInfo[]>): void {
    if (server.starting === attempt) server.starting = null;
  }

  /** Throws the error a caller sees when the lifecycle table refuses a start. */
  private refuseStart(server: ManagedServer, deliberate: boolean): void {
    const refusal = startRefusal(server.lifecycle, deliberate, this.nowS());
    if (!refusal) return;
    const details = { mcp_server_id: server.id };
    if (refusal.kind === "blocked") {
      throw new GatewayError("CannotStartMcpServerError", `MCP server '${server.id}' is blocked`, details);
    }
    const at = refusal.retry_allowed_at;
    const wait = at === null ? null : Math.max(0, at - this.nowS());
    const retry = {
      ...details,
      retry_allowed_at: at,
      time_until_retry_s: wait === null ? null : round1(wait),
    };
    if (server.lifecycle.state === "degraded") {
      throw new GatewayError(
        "McpServerDegradedError",
        `MCP server '${server.id}' is degraded: backoff not elapsed, retry in ${round1(wait ?? 0)}s`,
        retry,
      );
    }
    throw new GatewayError(
      "CircuitBreakerOpen",
      at === null
        ? `MCP server '${server.id}' is dead; only a deliberate start revives it`
        : `MCP server '${server.id}' is dead; retry allowed in ${round1(wait ?? 0)}s`,
      retry,
    );
  }

  private async runStart(server: ManagedServer, deliberate: boolean): Promise<ToolInfo[]> {
    const factory = this.deps.factories[server.spec.mode];
    if (!factory) {
      throw new GatewayError("NotConfiguredError", `mode '${server.spec.mode}' is not available`, {
        mcp_server_id: server.id,
      });
    }
    // A degraded server may still hold a connection (failing health checks): it is replaced.
    const previous = server.connection;
    server.connection = null;
    if (!this.transition(server, { on: "start", deliberate })) {
      server.connection = previous;
      throw new GatewayError(
        "McpServerNotReadyError",
        `McpServer is not ready (state=${server.lifecycle.state})`,
      );
    }
    const generation = ++server.generation;
    const abort = new AbortController();
    server.startAbort = abort;
    await previous?.close().catch(() => undefined);
    const began = this.deps.clock.monotonic();
    const logMark = server.logs.mark();
    const timeoutMs = this.deps.timings.startTimeoutMs;
    try {
      const connection = await factory.connect(this.contractedSpec(server), server.logs, {
        timeoutMs,
        signal: abort.signal,
      });
      try {
        const tools = (await connection.listTools({ timeoutMs, signal: abort.signal })).map((t) =>
          this.withDigest(t),
        );
        if (this.closing || generation !== server.generation) throw new Error("start abandoned");
        const undeclaredTools = undeclared(
          server.spec,
          "tools",
          tools.map((tool) => tool.name),
        );
        if (
          undeclaredTools.length > 0 &&
          reportUndeclared(server, this.deps.logger, "tools", undeclaredTools)
        ) {
          await connection.close().catch(() => undefined);
          this.transition(server, { on: "capability_blocked" });
          throw new GatewayError(
            "CannotStartMcpServerError",
            `MCP server '${server.id}' exposes tools outside its declared capabilities: ${undeclaredTools.join(", ")}`,
            { mcp_server_id: server.id, undeclared_tools: undeclaredTools },
          );
        }
        server.connection = connection;
        server.setTools(tools);
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
      if (generation !== server.generation || this.closing) {
        throw new GatewayError(
          "McpServerNotReadyError",
          `Start of MCP server '${server.id}' was abandoned: it was stopped`,
        );
      }
      if (error instanceof GatewayError && server.lifecycle.state === "dead") throw error;
      const failure = upstreamFailure(error, "CannotStartMcpServerError");
      const failed = startFailure(server, failure.message, error, logMark);
      server.logs.append("stderr", `${GATEWAY_NOTE_PREFIX}start failed: ${failure.message}`);
      this.deps.logger.error({ ...failed.details, mode: server.spec.mode }, "MCP server failed to start");
      this.transition(server, {
        on: "start_failed",
        error_type: failure.type,
        max_consecutive_failures: server.spec.max_consecutive_failures,
      });
      throw failed.error;
    } finally {
      if (server.startAbort === abort) server.startAbort = null;
    }
  }

  private onConnectionLost(server: ManagedServer, connection: unknown, reason: string): void {
    if (server.connection !== connection) return;
    server.connection = null;
    server.logs.append("stderr", `${GATEWAY_NOTE_PREFIX}connection lost: ${reason}`);
    this.deps.logger.warn({ mcp_server_id: server.id, reason }, "MCP server connection lost");
    this.transition(server, { on: "crashed" });
  }

  /**
   * Stops a server (any state): the state changes first, so a call arriving meanwhile starts a
   * fresh instance instead of using the closing one; a start in progress is abandoned. Returns
   * whether a running (or starting) instance was stopped.
   */
  async stopServer(
    server: ManagedServer,
    reason: string,
    trigger: "stop" | "idle" = "stop",
  ): Promise<boolean> {
    return this.halt(server, trigger === "idle" ? { on: "idle" } : { on: "stop", reason });
  }

  /** Stops a server for good (reason `detection_enforcement:block`); later starts are refused. */
  async block(server: ManagedServer): Promise<void> {
    this.blockedIds.add(server.id);
    const wasRunning = await this.halt(server, { on: "block" });
    this.deps.logger.info({ mcp_server_id: server.id, was_running: wasRunning }, "MCP server blocked");
  }

  private async halt(server: ManagedServer, trigger: LifecycleTrigger): Promise<boolean> {
    const connection = server.connection;
    const wasRunning = connection !== null || server.starting !== null;
    server.connection = null;
    if (server.starting) {
      server.generation++;
      server.startAbort?.abort();
      server.starting = null;
    }
    this.transition(server, trigger);
    await connection?.close().catch(() => undefined);
    return wasRunning;
  }

  /** Lists tools: the known ones, or (when `startIfCold`) after starting a cold server. */
  async tools(server: ManagedServer, startIfCold: boolean): Promise<readonly ToolInfo[]> {
    if (server.tools && (server.connection || !startIfCold || server.spec.predefined_tools?.length)) {
      return server.tools;
    }
    if (startIfCold && server.lifecycle.state !== "dead") return this.start(server, false);
    return server.tools ?? [];
  }

  /**
   * One health check of a ready server: `tools/list` within the health-check timeout. Tools that
   * appeared since the last listing are held to `capabilities` as at start: under `block`, an
   * undeclared one stops the server (`dead`, reason `capability_blocked`) and the check fails.
   */
  async checkHealth(server: ManagedServer): Promise<boolean> {
    const connection = server.connection;
    if (!connection || server.lifecycle.state === "initializing") return false;
    const began = this.deps.clock.monotonic();
    try {
      const listed = await connection.listTools({ timeoutMs: this.deps.timings.healthCheckTimeoutMs });
      const tools = listed.map((t) => this.withDigest(t));
      const known = new Set(server.tools?.map((tool) => tool.name));
      const appeared = undeclared(
        server.spec,
        "tools",
        tools.map((tool) => tool.name),
      ).filter((name) => !known.has(name));
      if (appeared.length > 0 && reportUndeclared(server, this.deps.logger, "tools", appeared)) {
        if (server.connection === connection) await this.halt(server, { on: "capability_blocked" });
        return false;
      }
      server.setTools(tools);
      const duration_ms = Math.round(this.deps.clock.monotonic() - began);
      this.transition(server, { on: "health_passed", duration_ms });
      this.deps.bus.publish([{ type: "HealthCheckPassed", mcp_server_id: server.id, duration_ms }]);
      return true;
    } catch (error) {
      const failure = upstreamFailure(error, "ToolInvocationError", this.deps.timings.healthCheckTimeoutMs);
      this.transition(server, {
        on: "health_failed",
        error: failure.message,
        max_consecutive_failures: server.spec.max_consecutive_failures,
      });
      this.deps.bus.publish([
        {
          type: "HealthCheckFailed",
          mcp_server_id: server.id,
          consecutive_failures: server.lifecycle.consecutive_failures,
          error: failure.message,
        },
      ]);
      return false;
    }
  }

  /** Stops ready servers unused for their `idle_ttl_s`. */
  async reapIdle(): Promise<string[]> {
    const now = this.deps.clock.monotonic();
    const stopped: string[] = [];
    for (const server of this.servers.values()) {
      if (server.lifecycle.state !== "ready" || server.inFlight + server.admitting > 0 || server.starting)
        continue;
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
      // A start in progress is abandoned (its connect is aborted), not waited for.
      [...this.servers.values()].map((server) => this.stopServer(server, "shutdown")),
    );
  }

  /**
   * The spec a server is started with: under a declared `capabilities.environment`, the configured
   * `env` variables it does not list are reported and, with `block`, withheld.
   */
  private contractedSpec(server: ManagedServer): ServerSpec {
    const env = server.spec.env ?? {};
    const names = undeclared(server.spec, "environment variables", Object.keys(env));
    if (names.length === 0 || !reportUndeclared(server, this.deps.logger, "environment variables", names)) {
      return server.spec;
    }
    const withheld = new Set(names);
    return {
      ...server.spec,
      env: Object.fromEntries(Object.entries(env).filter(([name]) => !withheld.has(name))),
    };
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
    // Canonicalization and every later serialization recurse: such a schema would exhaust the stack.
    if (jsonValueNestsDeeper(tool, MAX_RELAYED_JSON_DEPTH)) {
      throw new TypeError(`tool '${tool.name}' nests deeper than ${MAX_RELAYED_JSON_DEPTH} levels`);
    }
    const digest = this.deps.hasher.sha256Hex(this.deps.hasher.canonicalJson(digestSubject(tool)));
    return { ...tool, digest };
  }

  private nowS(): number {
    return this.deps.clock.now() / 1000;
  }
}

const round1 = (n: number) => Math.round(n * 10) / 10;
