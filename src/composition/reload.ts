import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { EventBus } from "../app/event-bus.js";
import type { Fleet } from "../app/fleet/fleet.js";
import type { InvokerLimits, ToolInvoker } from "../app/fleet/tool-invoker.js";
import type { Governance } from "../app/governance/governance.js";
import type { GroupService } from "../app/groups/group-service.js";
import type { HeaderExposure } from "../app/headers/header-exposure.js";
import type { DigestPins } from "../app/pins/digest-pins.js";
import type { Clock } from "../app/ports/clock.js";
import type { ConfigReloader, ReloadOutcome } from "../app/ports/config-reloader.js";
import type { Logger } from "../app/ports/logger.js";
import type { RunningConfig } from "../app/ports/running-config.js";
import type { ServiceSettings } from "../app/services.js";
import { declaredServers, diffConfigs, type ReloadPlan } from "../config/diff.js";
import { ConfigValidationError, type Environment, parseConfig } from "../config/load.js";
import type { GatewayConfig, GroupEntry } from "../config/schema.js";
import { isGroupEntry } from "../config/schema.js";
import { GatewayError } from "../domain/errors.js";
import type { ToolPolicy } from "../domain/policy/tool-policy.js";
import type { ServerSpec } from "../domain/server/server-spec.js";
import { pinBlocks } from "./digest-pins.js";
import { governanceSettings } from "./governance.js";
import { exposureBlocks, refuseDeclaredExposure } from "./header-exposure.js";
import { specFromEntry } from "./server-specs.js";

/** The tool-call path's limits of a configuration (`execution`). */
export function invokerLimits(config: GatewayConfig): InvokerLimits {
  return {
    maxConcurrency: config.execution.max_concurrency,
    maxResponseBytes: config.execution.max_response_bytes,
    tenantLimits: config.execution.tenant_limits,
  };
}

export interface ReloadDeps {
  /** The file the process was started with; every reload reads it again. */
  path: string;
  /** The configuration running now, and the YAML it was read from (for the explicit-null rule). */
  current: { config: GatewayConfig; raw?: unknown };
  fleet: Fleet;
  /** Takes the `execution` limits. */
  invoker: ToolInvoker;
  groups: GroupService;
  governance: Governance;
  pins: DigestPins;
  headerExposure: HeaderExposure;
  /**
   * The front door, which takes `resource_links`, `ui_resources` and
   * `tool_access.required_catalogue`; null in egress, where they have no effect.
   */
  frontDoor: () => { configure(config: GatewayConfig): void } | null;
  settings: ServiceSettings;
  /** The ids declared by the file (REST may not delete them); kept in step with each reload. */
  declared: Set<string>;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  /** Environment the file is validated against (defaults to the process's). */
  env?: Environment;
}

/** The failure every trigger reports: nothing was changed, `reason` says why. */
function reloadFailed(reason: string): GatewayError {
  return new GatewayError("ValidationError", `Configuration reload failed: ${reason}`, { reason });
}

/**
 * Reloads the configuration file (spec 2 §3). Reloads run one at a time, in order of request.
 * Everything that can refuse (reading, validation, the topology, the declared header exposure,
 * ids taken by runtime servers) is checked before the first change, so a refused reload leaves the
 * gateway exactly as it was.
 */
export class FileConfigReloader implements ConfigReloader, RunningConfig {
  private current: { config: GatewayConfig; raw?: unknown };
  private queue: Promise<unknown> = Promise.resolve();
  private failure: { at: number; reason: string } | null = null;

  constructor(private readonly deps: ReloadDeps) {
    this.current = deps.current;
  }

  /** The configuration applied last. */
  get config(): GatewayConfig {
    return this.current.config;
  }

  /** The document applied last as written; the validated configuration when the text is unknown. */
  document(): unknown {
    return this.current.raw ?? this.current.config;
  }

  lastFailure(): { at: number; reason: string } | null {
    return this.failure;
  }

  reload(request: { graceful: boolean; requestedBy: string }): Promise<ReloadOutcome> {
    const run = this.queue.then(() => this.reloadNow(request));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async reloadNow(request: { graceful: boolean; requestedBy: string }): Promise<ReloadOutcome> {
    const { bus, clock, logger, path } = this.deps;
    const started = clock.monotonic();
    bus.publish([
      {
        type: "ConfigurationReloadRequested",
        config_path: path,
        graceful: request.graceful,
        requested_by: request.requestedBy,
      },
    ]);
    const fail = (reason: string) => {
      this.failure = { at: clock.now() / 1000, reason };
      bus.publish([
        { type: "ConfigurationReloadFailed", config_path: path, reason, requested_by: request.requestedBy },
      ]);
      logger.warn(
        { config_path: path, reason },
        "configuration reload refused; the current configuration stays",
      );
      return reloadFailed(reason);
    };
    let next: { config: GatewayConfig; raw: unknown };
    let plan: ReloadPlan;
    try {
      next = await this.read();
      plan = diffConfigs(this.current, next);
      if (plan.refusal) throw new Error(plan.refusal);
      this.check(next.config, plan);
    } catch (error) {
      throw fail(describe(error));
    }
    try {
      await this.apply(next.config, plan);
    } catch (error) {
      throw fail(`applying the new configuration: ${describe(error)}`);
    }
    this.current = next;
    this.failure = null;
    const restartRequired = [...plan.restartSections];
    const outcome: ReloadOutcome = {
      config_path: path,
      mcp_servers_added: [...plan.added, ...plan.groupsAdded],
      mcp_servers_removed: [...plan.removed, ...plan.groupsRemoved],
      mcp_servers_updated: [...plan.modified.map((change) => change.id), ...plan.groupsChanged],
      mcp_servers_unchanged: [
        ...plan.unchanged,
        ...Object.entries(next.config.mcp_servers)
          .filter(
            ([id, entry]) =>
              isGroupEntry(entry) && !plan.groupsAdded.includes(id) && !plan.groupsChanged.includes(id),
          )
          .map(([id]) => id),
      ],
      duration_ms: Math.round(clock.monotonic() - started),
      restart_required: restartRequired,
    };
    if (restartRequired.length > 0) {
      logger.warn(
        { config_path: path, sections: restartRequired },
        "configuration sections changed that apply only after a restart",
      );
    }
    bus.publish([
      {
        type: "ConfigurationReloaded",
        config_path: path,
        mcp_servers_added: [...outcome.mcp_servers_added],
        mcp_servers_removed: [...outcome.mcp_servers_removed],
        mcp_servers_updated: [...outcome.mcp_servers_updated],
        mcp_servers_unchanged: [...outcome.mcp_servers_unchanged],
        reload_duration_ms: outcome.duration_ms,
        requested_by: request.requestedBy,
      },
    ]);
    logger.info(
      {
        config_path: path,
        added: outcome.mcp_servers_added,
        removed: outcome.mcp_servers_removed,
        updated: outcome.mcp_servers_updated,
      },
      "configuration reloaded",
    );
    return outcome;
  }

  private async read(): Promise<{ config: GatewayConfig; raw: unknown }> {
    const { path } = this.deps;
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      throw new Error(`cannot read ${path}: ${(error as Error).message}`);
    }
    const loaded = parseConfig(text, { sourceName: path, ...(this.deps.env && { env: this.deps.env }) });
    return { config: loaded.config, raw: loaded.raw };
  }

  /** Everything that could refuse the new configuration, before anything changes. */
  private check(config: GatewayConfig, plan: ReloadPlan): void {
    refuseDeclaredExposure(config);
    for (const id of [...plan.added, ...plan.groupsAdded]) {
      const taken =
        (this.deps.fleet.has(id) && !this.deps.declared.has(id)) ||
        (this.deps.groups.has(id) && !this.deps.declared.has(id));
      if (taken)
        throw new Error(
          `mcp_servers.${id}: the id is already used by a server or group registered at runtime`,
        );
    }
  }

  private async apply(config: GatewayConfig, plan: ReloadPlan): Promise<void> {
    const { fleet, groups, declared, logger } = this.deps;
    // First: the only live setting that can refuse (an invalid tenant budget), before any change.
    this.deps.invoker.configure(invokerLimits(config));
    const configDir = dirname(this.deps.path);
    const entries = declaredServers({ config });
    const specOf = (id: string): ServerSpec => {
      const found = entries.get(id);
      if (!found) throw new Error(`mcp_servers.${id}: not declared`);
      return specFromEntry(id, found.entry, configDir);
    };
    // Groups first, so no call is routed to a member that is going away.
    for (const id of plan.groupsRemoved) {
      if (groups.has(id)) groups.remove(id);
      declared.delete(id);
    }
    for (const id of plan.removed) {
      if (fleet.has(id)) await fleet.remove(id);
      declared.delete(id);
    }
    for (const change of plan.modified) {
      const spec = specOf(change.id);
      if (fleet.has(change.id)) await fleet.replace(spec, [...change.fields]);
      else fleet.register(spec);
    }
    for (const id of plan.added) {
      fleet.register(specOf(id));
      declared.add(id);
    }
    // Live settings of kept servers: the tool access block and predefined tools.
    for (const id of plan.policyChanged) {
      const server = fleet.get(id);
      if (!server) continue;
      const spec = specOf(id);
      fleet.amend(server, { tool_policy: spec.tool_policy, predefined_tools: spec.predefined_tools });
    }
    for (const id of [...plan.groupsAdded, ...plan.groupsChanged]) {
      const entry = config.mcp_servers[id] as GroupEntry;
      // A changed group is registered again: members, weights, priorities, strategy and policies
      // take effect at once; its member servers keep running.
      groups.register({ group_id: id, ...entry }, "config", entry.auto_start, groupPolicies(entry));
      declared.add(id);
    }
    this.deps.governance.configure(governanceSettings(config));
    this.deps.pins.configure(pinBlocks(config));
    this.deps.headerExposure.configure(exposureBlocks(config));
    this.deps.settings.paramHeadersRequired = config.headers.param_validation.required;
    fleet.setDefaultServerConcurrency(config.execution.default_mcp_server_concurrency);
    this.deps.frontDoor()?.configure(config);
    logger.debug({ groups: plan.groupsChanged, policies: plan.policyChanged }, "live settings applied");
  }
}

function groupPolicies(entry: GroupEntry): { group?: ToolPolicy; members: Map<string, ToolPolicy> } {
  const members = new Map<string, ToolPolicy>();
  for (const member of entry.members)
    if (member.kind === "reference" && member.tools) members.set(member.id, member.tools as ToolPolicy);
  return { ...(entry.tools && { group: entry.tools as ToolPolicy }), members };
}

function describe(error: unknown): string {
  if (error instanceof ConfigValidationError)
    return error.issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
  return error instanceof Error ? error.message : String(error);
}
