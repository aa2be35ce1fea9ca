import { RequestRejected } from "../../domain/errors.js";
import { type ToolPolicy, visibleTools } from "../../domain/policy/tool-policy.js";
import type { Fleet } from "../fleet/fleet.js";
import type { ToolInfo } from "../fleet/managed-server.js";
import type { Clock } from "../ports/clock.js";
import type { EndpointGuard } from "../ports/endpoint-guard.js";
import type { Logger } from "../ports/logger.js";
import type { McpRegistry, RegistryServer } from "../ports/mcp-registry.js";
import { deadView } from "../views/server-views.js";
import { type EnvironmentReader, type InstallPlan, planInstall } from "./install-plan.js";
import {
  type LoadResult,
  matchView,
  missingSecrets,
  policyWarnings,
  type RuntimeServerView,
  type UnloadResult,
} from "./load-results.js";
import { MAX_MATCHES, matchName } from "./name-match.js";
import { type PolicyRequest, type ToolPolicyParser, validatePolicyRequest } from "./policy-request.js";
import { idCandidates, specFor } from "./runtime-spec.js";
import { verificationOf } from "./verification.js";

export type { LoadResult, RuntimeServerView, UnloadResult } from "./load-results.js";

export interface LoadRequest extends PolicyRequest {
  /** A registry server name: full (`io.github.owner/weather`) or short (`weather`). */
  readonly name: string;
  readonly force_unverified: boolean;
}

export interface HotLoadingDeps {
  registry: McpRegistry;
  fleet: Fleet;
  /** Ids of groups share the namespace of server ids. */
  groups: { has(id: string): boolean };
  /** The SSRF policy: a remote from the registry is as untrusted as one registered through REST. */
  endpointGuard: EndpointGuard;
  clock: Clock;
  logger: Logger;
  /** The gateway's environment, where required variables of a package are looked up. */
  readEnv: EnvironmentReader;
  parsePolicy: ToolPolicyParser;
  /** Whether an approval gate decides held calls (`approvals.enabled`); `approval_tools` needs one. */
  approvalsAvailable: boolean;
}

interface RuntimeRecord {
  readonly id: string;
  readonly registryName: string;
  readonly version: string;
  readonly verified: boolean;
  /** Epoch milliseconds. */
  readonly loadedAt: number;
  /** Monotonic milliseconds, for the lifetime. */
  readonly loadedMono: number;
}

/**
 * Hot loading: installs servers found in an MCP registry as runtime servers of this replica's fleet
 * (`source: 'runtime'`), and removes them again.
 *
 * Guaranteed: a load validates its tool policy before anything else and leaves nothing installed
 * unless it answers `loaded`; one registry server is loaded at most once at a time (a second load
 * answers `already_loaded`); runtime servers are never written to storage, so a restart forgets
 * them; values taken from the environment are never logged.
 * Not guaranteed: that a loaded server keeps working (it is a fleet server like any other: idle
 * stops, health checks and crashes apply), or any coordination with other replicas.
 */
export class HotLoadingService {
  private readonly records = new Map<string, RuntimeRecord>();
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: HotLoadingDeps) {}

  async load(request: LoadRequest): Promise<LoadResult> {
    const policy = validatePolicyRequest(request, this.deps.parsePolicy, this.deps.approvalsAvailable);
    const name = request.name.trim();
    let found: readonly RegistryServer[];
    try {
      found = await this.deps.registry.search(name);
    } catch (error) {
      return {
        status: "failed",
        message: `Registry lookup failed: ${messageOf(error)}`,
        mcp_server_name: name,
      };
    }
    const match = matchName(name, found);
    if (match.kind === "none") {
      return {
        status: "not_found",
        message: `No server named '${name}' in the registry`,
        mcp_server_name: name,
      };
    }
    if (match.kind === "ambiguous") {
      const shown = match.matches.slice(0, MAX_MATCHES);
      const more = match.matches.length > shown.length ? ` (first ${shown.length} shown)` : "";
      return {
        status: "ambiguous",
        message: match.exact
          ? `Several registry servers are named '${name}'${more}; load one by its full name`
          : `No registry server is named '${name}' exactly; ${match.matches.length} match it partly${more}. ` +
            "Load one by its full name",
        mcp_server_name: name,
        matches: shown.map(matchView),
      };
    }
    const entry = match.server;
    return this.exclusive(entry.name.toLowerCase(), () => this.install(entry, request, policy));
  }

  async unload(id: string): Promise<UnloadResult> {
    this.prune();
    const record = this.records.get(id);
    const server = this.deps.fleet.get(id);
    if (record === undefined || server === undefined) {
      const why =
        server === undefined
          ? `No MCP server '${id}' is loaded`
          : server.spec.source === "config"
            ? `MCP server '${id}' is declared in the configuration file, not hot-loaded`
            : `MCP server '${id}' was registered through the REST API, not hot-loaded`;
      return { status: "not_hot_loaded", mcp_server: id, message: why };
    }
    const lifetime_seconds = this.lifetimeOf(record);
    try {
      await this.deps.fleet.exclusive(id, async () => {
        if (this.deps.fleet.get(id) === server) await this.deps.fleet.remove(id);
      });
    } catch (error) {
      return {
        status: "failed",
        mcp_server: id,
        message: `Unloading '${id}' failed: ${messageOf(error)}`,
        lifetime_seconds,
      };
    }
    this.records.delete(id);
    this.deps.logger.info(
      { mcp_server_id: id, mcp_server_name: record.registryName, lifetime_seconds },
      "hot-loaded MCP server unloaded",
    );
    return {
      status: "unloaded",
      mcp_server: id,
      message: `Unloaded '${id}' (${record.registryName}) after ${lifetime_seconds} s`,
      lifetime_seconds,
    };
  }

  /** Runtime servers of this replica, optionally only those in `stateFilter`. */
  runtimeServers(stateFilter: string | null = null): RuntimeServerView[] {
    this.prune();
    const views: RuntimeServerView[] = [];
    for (const record of this.records.values()) {
      const server = this.deps.fleet.get(record.id);
      if (server === undefined) continue;
      const state = server.lifecycle.state;
      if (stateFilter !== null && state !== stateFilter) continue;
      views.push({
        mcp_server: record.id,
        state,
        source: `registry:${record.registryName}@${record.version}`,
        verified: record.verified,
        ephemeral: true,
        loaded_at: new Date(record.loadedAt).toISOString(),
        lifetime_seconds: this.lifetimeOf(record),
        dead: deadView(server.lifecycle),
      });
    }
    return views;
  }

  private async install(
    entry: RegistryServer,
    request: LoadRequest,
    policy: ToolPolicy | undefined,
  ): Promise<LoadResult> {
    const name = entry.name;
    this.prune();
    const existing = [...this.records.values()].find(
      (r) => r.registryName.toLowerCase() === name.toLowerCase(),
    );
    if (existing !== undefined) {
      return {
        status: "already_loaded",
        message: `'${name}' is already loaded as '${existing.id}'; unload it first to load it again`,
        mcp_server_id: existing.id,
        mcp_server_name: name,
      };
    }
    const verification = verificationOf(entry);
    if (!verification.verified && !request.force_unverified) {
      const reason = verification.reason ?? "not verified";
      return {
        status: "unverified",
        message: `'${name}' is not verified: ${reason}. Call gateway_load again with force_unverified: true to load it anyway`,
        mcp_server_name: name,
        reason,
      };
    }
    const outcome = planInstall(entry, this.deps.readEnv);
    if (!outcome.ok && outcome.kind === "missing") return missingSecrets(name, outcome.missing, outcome.via);
    if (!outcome.ok) {
      return {
        status: "failed",
        message: `'${name}' cannot be run by the gateway: ${outcome.reasons.join("; ")}`,
        mcp_server_name: name,
      };
    }
    const plan = outcome.plan;
    if (plan.kind === "remote") {
      try {
        await this.deps.endpointGuard.assertAllowed(plan.endpoint);
      } catch (error) {
        return {
          status: "failed",
          message: `'${name}' was refused: ${messageOf(error)}`,
          mcp_server_name: name,
        };
      }
    }
    const id = await this.register(entry, plan, policy, verification.verified);
    if (id === null) {
      return {
        status: "failed",
        message: `'${name}' cannot be loaded: its server ids are taken by other servers`,
        mcp_server_name: name,
      };
    }
    let tools: readonly ToolInfo[];
    try {
      tools = await this.deps.fleet.start(this.deps.fleet.require(id), true);
    } catch (error) {
      await this.discard(id);
      return {
        status: "failed",
        message: `'${name}' did not start: ${messageOf(error)}`,
        mcp_server_name: name,
      };
    }
    const warnings = [
      ...(verification.verified ? [] : [`loaded without verification: ${verification.reason}`]),
      ...outcome.warnings,
      ...policyWarnings(policy, tools),
    ];
    const visible = visibleTools(tools, [policy]).map((tool) => tool.name);
    this.deps.logger.info(
      { mcp_server_id: id, mcp_server_name: name, via: plan.via, verified: verification.verified },
      "MCP server hot-loaded",
    );
    return {
      status: "loaded",
      message: `Loaded '${name}' ${entry.version} as '${id}' (${plan.via}) with ${visible.length} tool(s)`,
      mcp_server_id: id,
      mcp_server_name: name,
      tools: visible,
      ...(warnings.length > 0 && { warnings }),
    };
  }

  /** Registers the runtime server under the first free id; null when every candidate is taken. */
  private async register(
    entry: RegistryServer,
    plan: InstallPlan,
    policy: ToolPolicy | undefined,
    verified: boolean,
  ): Promise<string | null> {
    for (const id of idCandidates(entry.name)) {
      if (this.idTaken(id)) continue;
      const registered = await this.deps.fleet.exclusive(id, async () => {
        if (this.idTaken(id)) return false;
        this.deps.fleet.register(specFor(id, entry, plan, policy));
        this.records.set(id, {
          id,
          registryName: entry.name,
          version: entry.version,
          verified,
          loadedAt: this.deps.clock.now(),
          loadedMono: this.deps.clock.monotonic(),
        });
        return true;
      });
      if (registered) return id;
    }
    return null;
  }

  /** Removes a runtime server whose load failed, so that nothing of it stays installed. */
  private async discard(id: string): Promise<void> {
    this.records.delete(id);
    await this.deps.fleet
      .exclusive(id, async () => {
        if (this.deps.fleet.has(id)) await this.deps.fleet.remove(id);
      })
      .catch((error: unknown) =>
        this.deps.logger.warn({ mcp_server_id: id, err: messageOf(error) }, "could not remove a failed load"),
      );
  }

  private idTaken(id: string): boolean {
    return this.deps.fleet.has(id) || this.deps.groups.has(id);
  }

  /** Forgets records whose server was removed by other means (REST delete). */
  private prune(): void {
    for (const [id, record] of this.records) {
      const server = this.deps.fleet.get(id);
      if (server === undefined || server.spec.source !== "runtime") this.records.delete(record.id);
    }
  }

  private lifetimeOf(record: RuntimeRecord): number {
    return Math.round((this.deps.clock.monotonic() - record.loadedMono) / 100) / 10;
  }

  /** Runs `task` after every earlier task of the same key. */
  private async exclusive<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.catch(() => undefined);
    this.locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    }
  }
}

/** A message safe to show: the guard's detail, or the error's own (ports promise safe messages). */
function messageOf(error: unknown): string {
  if (error instanceof RequestRejected) return error.detail;
  return error instanceof Error ? error.message : String(error);
}
