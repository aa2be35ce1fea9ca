import { combinedVerdict } from "../../domain/policy/tool-policy.js";
import type { EventBus } from "../event-bus.js";
import type { ToolInfo } from "../fleet/managed-server.js";
import type { Logger } from "../ports/logger.js";
import { memberPolicies } from "../routing/route-call.js";
import type { AppServices } from "../services.js";

/** One upstream tool as the front door lists it, and where a call to it goes. */
export interface ProjectedTool {
  readonly tool: ToolInfo;
  /** The server, or the group whose strategy picks a member, that serves calls to it. */
  readonly target: string;
}

/** Events after which the projection may differ. */
const RELEVANT = new Set([
  "McpServerRegistered",
  "McpServerUpdated",
  "McpServerRemoved",
  "McpServerStarted",
  "McpServerDied",
  "HealthCheckPassed",
  "GroupMemberRotationChanged",
]);

/**
 * The upstream tools of the front door, under their own names (spec 2 §4).
 *
 * Targets are the groups and the servers that belong to no group, in id order. A group offers the
 * tools of its members that are not dead, each allowed for that member by every group the member
 * belongs to, the member's group entry and its own policy, and by the governance layers that do not
 * depend on the caller (stored and agent-pushed policies); per-caller layers (tenant policies,
 * withdrawals) are applied to each listing by `caller-view.ts`. When two targets offer the same name,
 * the first target in id order serves it and the others' tool is not listed (logged once); a tool
 * named like a management tool (`reservedNames`) is never listed: the gateway's own serves it. A
 * server whose tools are not known yet, or that is dead, offers nothing until it lists again.
 */
export class ToolProjection {
  private byName = new Map<string, ProjectedTool>();
  private fingerprint = "";
  private readonly shadowedLogged = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private readonly projectedOnce = new Set<string>();

  constructor(
    private readonly services: Pick<AppServices, "fleet" | "groups" | "governance"> & { logger: Logger },
    /** The management tools' names: the front door lists them, so no upstream tool takes them. */
    private readonly reservedNames: ReadonlySet<string> = new Set(),
  ) {}

  /** Recomputes on the events that may change it, and tells listeners when the listing changed. */
  watch(bus: EventBus): () => void {
    return bus.subscribe((event) => {
      if (RELEVANT.has(event.type)) this.refresh();
    });
  }

  /** Called when the listed tools changed (names, schemas or targets). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The projected tools, recomputed now: some changes publish no event (a group created or changed
   * through REST), and a listing is rare next to calls, which use the kept index.
   */
  tools(): ProjectedTool[] {
    this.refresh();
    return [...this.byName.values()];
  }

  /** The tool of that name, after one recomputation if it is not (or no longer) known. */
  find(name: string): ProjectedTool | undefined {
    const known = this.byName.get(name);
    if (known) return known;
    this.refresh();
    return this.byName.get(name);
  }

  /** Whether a server (or a member of a group) has contributed tools at least once. */
  wasProjected(id: string): boolean {
    return this.projectedOnce.has(id);
  }

  /** Recomputes now; tells listeners when the listing changed. */
  refresh(): void {
    const next = this.compute();
    const fingerprint = [...next.values()]
      .map(({ tool, target }) => `${tool.name}\u0000${tool.digest}\u0000${target}`)
      .join("\u0001");
    this.byName = next;
    if (fingerprint === this.fingerprint) return;
    this.fingerprint = fingerprint;
    for (const listener of this.listeners) listener();
  }

  private compute(): Map<string, ProjectedTool> {
    const { fleet, groups } = this.services;
    const offers: { target: string; tools: ToolInfo[] }[] = [];
    for (const [id] of groups.list()) {
      const tools: ToolInfo[] = [];
      const seen = new Set<string>();
      for (const member of groups.memberIds(id)) {
        for (const tool of this.offeredBy(member)) {
          if (seen.has(tool.name)) continue;
          seen.add(tool.name);
          tools.push(tool);
        }
      }
      offers.push({ target: id, tools });
    }
    for (const server of fleet.list()) {
      if (groups.groupsOf(server.id).length > 0) continue;
      offers.push({ target: server.id, tools: this.offeredBy(server.id) });
    }
    offers.sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
    const byName = new Map<string, ProjectedTool>();
    for (const { target, tools } of offers) {
      for (const tool of tools) {
        if (this.reservedNames.has(tool.name)) {
          this.logShadowed(tool.name, target, "an upstream tool named like a management tool is not listed");
          continue;
        }
        const first = byName.get(tool.name);
        if (!first) {
          byName.set(tool.name, { tool, target });
          continue;
        }
        this.logShadowed(
          tool.name,
          target,
          "two targets offer a tool of the same name on the front door; the first in id order serves it",
          first.target,
        );
      }
    }
    return byName;
  }

  /** The tools a server offers on the front door: known, not dead, allowed by every policy over it. */
  private offeredBy(serverId: string): ToolInfo[] {
    const server = this.services.fleet.get(serverId);
    if (!server?.tools || server.lifecycle.state === "dead") return [];
    this.projectedOnce.add(serverId);
    const policies = memberPolicies(this.services, serverId, null, true);
    if (policies.every((policy) => policy === undefined)) return [...server.tools];
    return server.tools.filter((tool) => combinedVerdict(policies, tool.name) !== "deny");
  }

  private logShadowed(name: string, shadowed: string, why: string, servedBy?: string): void {
    const key = `${name}\u0000${shadowed}`;
    if (this.shadowedLogged.has(key)) return;
    this.shadowedLogged.add(key);
    this.services.logger.warn({ tool: name, shadowed, ...(servedBy && { served_by: servedBy }) }, why);
  }
}
