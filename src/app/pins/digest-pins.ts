import {
  DriftLedger,
  type PinBlock,
  type PinCheck,
  type PinSource,
  type PinVerdict,
  pinChecks,
  pinVerdict,
  resolvePin,
  unknownToolPolicy,
} from "../../domain/policy/digest-pins.js";
import type { EventBus } from "../event-bus.js";
import type { Fleet } from "../fleet/fleet.js";
import type { ManagedServer } from "../fleet/managed-server.js";
import type { GroupService } from "../groups/group-service.js";
import type { Logger } from "../ports/logger.js";

/** Events after which a server's tools were listed anew (a start, a health check or a re-check). */
const LISTED = new Set(["McpServerStarted", "HealthCheckPassed"]);

export interface DigestPinsDeps {
  fleet: Fleet;
  groups: Pick<GroupService, "groupsOf">;
  bus: EventBus;
  logger: Logger;
}

/**
 * The digest pins of the fleet (spec 2 "Digest pinning"): the `tool_projection` blocks of servers
 * and groups, and the drifts seen so far.
 *
 * A server is governed by its own block and by the block of every group it belongs to (a pin
 * speaks of the tool itself, whatever the route to it). Every listing of a pinned server is
 * compared with its pins, and each drift publishes one `DigestMismatchEvent`, whether a listing or
 * a call sees it first. Guaranteed: a call is checked against the tools as last listed by the
 * running server; a change upstream is seen at the next listing (start, health check, pin
 * re-check, the upstream's `tools/list_changed` on the front door), not before.
 */
export class DigestPins {
  private readonly ledger = new DriftLedger();

  constructor(
    private readonly deps: DigestPinsDeps,
    /** Blocks by the id of the server or group that declares them. */
    private blocks: ReadonlyMap<string, PinBlock>,
  ) {}

  /** Replaces the declared blocks (configuration reload); later listings and calls see the new ones. */
  configure(blocks: ReadonlyMap<string, PinBlock>): void {
    this.blocks = blocks;
  }

  /** Compares every new listing with the pins; returns the unsubscribe function. */
  watch(): () => void {
    return this.deps.bus.subscribe((event) => {
      if (event.type === "McpServerRemoved" || event.type === "McpServerRegistered") {
        this.ledger.forget(event.mcp_server_id);
        return;
      }
      if (!LISTED.has(event.type)) return;
      const server = this.deps.fleet.get((event as { mcp_server_id: string }).mcp_server_id);
      if (server) this.review(server);
    });
  }

  /** Whether any block over the server declares a pin. */
  isPinned(serverId: string): boolean {
    return unknownToolPolicy(this.sourcesOf(serverId)) !== null;
  }

  /** Servers governed by at least one pin. */
  pinnedServers(): ManagedServer[] {
    return this.deps.fleet.list().filter((server) => this.isPinned(server.id));
  }

  /** The pin for every caller of a tool (spec 1 `pinned_digest`); per-tenant pins are not shown. */
  pinnedDigest(serverId: string, tool: string): string | undefined {
    return resolvePin(this.sourcesOf(serverId), tool, null)?.digest;
  }

  /**
   * The verdict on a call to a tool as last listed, for a caller of `tenant`; null when the tool is
   * not listed (the call is refused as an unknown tool further on). A drift it meets is reported.
   */
  verdict(server: ManagedServer, tool: string, tenant: string | null): PinVerdict | null {
    const listed = server.tools?.find((candidate) => candidate.name === tool);
    if (!listed) return null;
    const verdict = pinVerdict(this.sourcesOf(server.id), tool, tenant, listed.digest);
    if (verdict.kind === "mismatch")
      this.report(server.id, { tool, pin: verdict.pin, observed: listed.digest });
    return verdict;
  }

  /**
   * Whether a caller's listing leaves a tool out: a call to it would be refused under `block` (a
   * drift, or an unpinned tool under `unknown_tool_policy: block`), and a drifted description is
   * the very text a model must not read. Judged with the pins over `targetId` (a server, or a group
   * on the front door).
   */
  hidesFromListing(targetId: string, tool: { name: string; digest: string }, tenant: string | null): boolean {
    const verdict = pinVerdict(this.sourcesOf(targetId), tool.name, tenant, tool.digest);
    if (verdict.kind === "mismatch") return verdict.pin.enforcement === "block";
    return verdict.kind === "unknown" && verdict.policy === "block";
  }

  /** Compares a server's listing with every pin over it; reports the drifts not reported yet. */
  review(server: ManagedServer): void {
    const sources = this.sourcesOf(server.id);
    if (!server.tools || unknownToolPolicy(sources) === null) return;
    for (const check of pinChecks(sources, server.tools)) this.report(server.id, check);
  }

  private report(serverId: string, check: PinCheck): void {
    if (!this.ledger.note(serverId, check)) return;
    const { pin } = check;
    this.deps.logger.warn(
      {
        mcp_server_id: serverId,
        tool: check.tool,
        tenant_id: pin.tenant_id,
        pinned_digest: pin.digest,
        observed_digest: check.observed,
        enforcement: pin.enforcement,
      },
      "tool digest drifted from its pin",
    );
    this.deps.bus.publish([
      {
        type: "DigestMismatchEvent",
        mcp_server_id: serverId,
        tool_name: check.tool,
        pinned_digest: pin.digest,
        observed_digest: check.observed,
        tenant_id: pin.tenant_id,
        declared_on: pin.declared_on,
        enforcement: pin.enforcement,
      },
    ]);
  }

  /** The blocks over a server, most specific first: its own, then its groups' in id order. */
  private sourcesOf(serverId: string): PinSource[] {
    const sources: PinSource[] = [];
    const own = this.blocks.get(serverId);
    if (own) sources.push({ declared_on: serverId, block: own });
    for (const group of [...this.deps.groups.groupsOf(serverId)].sort()) {
      const block = this.blocks.get(group);
      if (block) sources.push({ declared_on: group, block });
    }
    return sources;
  }
}
