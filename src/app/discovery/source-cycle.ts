import { fingerprintFromDigest, fingerprintInput } from "../../domain/discovery/fingerprint.js";
import { entryTtlSeconds, isExpired } from "../../domain/discovery/pending-ttl.js";
import { type CycleDecision, planCycle, type Sighting } from "../../domain/discovery/plan-cycle.js";
import { admitRegistration, withinSourceCap } from "../../domain/discovery/registration-limits.js";
import type { ServerSpec } from "../../domain/server/server-spec.js";
import type { EventBus } from "../event-bus.js";
import type { Fleet } from "../fleet/fleet.js";
import type { GroupService } from "../groups/group-service.js";
import type { Clock } from "../ports/clock.js";
import type { DiscoveredServer } from "../ports/discovery-source.js";
import type { Hasher } from "../ports/hasher.js";
import type { Logger } from "../ports/logger.js";
import type { ServerConfigRepository } from "../ports/server-config-repository.js";
import type { DefinitionCheck, DiscoverySettings, EndpointProbe } from "./discovery-deps.js";
import {
  type PendingEntry,
  type QuarantineEntry,
  type QuarantineReason,
  RETRIED_REASONS,
  reasonCode,
  type SourceRecord,
  type SourceResult,
} from "./discovery-state.js";

/** A scan that takes longer is abandoned and counted as the source's failure. */
const SCAN_TIMEOUT_MS = 30_000;

export interface CycleDeps {
  fleet: Fleet;
  groups: GroupService;
  bus: EventBus;
  clock: Clock;
  hasher: Hasher;
  logger: Logger;
  check: DefinitionCheck;
  probe: EndpointProbe;
  settings: DiscoverySettings;
  /**
   * The shared configuration store: discovered servers are kept there like REST-registered ones,
   * so peers take them in and a restart or a new fleet manager finds them registered.
   */
  serverConfigs: ServerConfigRepository;
}

/** What the service holds, shared by the cycle and the operator's actions. */
export interface DiscoveryHoldings {
  readonly sources: Map<string, SourceRecord>;
  readonly pending: Map<string, PendingEntry>;
  readonly quarantined: Map<string, QuarantineEntry>;
  /** Rejected definitions (name -> fingerprint): ignored until the definition changes. */
  readonly rejected: Map<string, string>;
}

interface Found extends Sighting {
  readonly server: DiscoveredServer;
}

class ValidationFailure {
  constructor(
    readonly reason: QuarantineReason,
    readonly detail: string,
  ) {}
}

/**
 * One source's cycle: scan, plan (`domain/discovery/plan-cycle.ts`), then apply: validate and
 * register, update or hold what is new, quarantine (or drop, with `quarantine_on_failure: false`)
 * what fails validation, deregister what an authoritative source no longer reports.
 */
export class SourceCycle {
  constructor(
    private readonly deps: CycleDeps,
    private readonly held: DiscoveryHoldings,
  ) {}

  async run(record: SourceRecord): Promise<SourceResult> {
    const result: SourceResult = {
      source_type: record.type,
      mcp_servers_found: 0,
      registered: 0,
      updated: 0,
      deregistered: 0,
      quarantined: 0,
      pending: 0,
      errors: [],
    };
    const source = record.source;
    if (!source) return result;
    let scan: Awaited<ReturnType<typeof source.scan>>;
    try {
      scan = await source.scan(AbortSignal.timeout(SCAN_TIMEOUT_MS));
    } catch (error) {
      record.isHealthy = false;
      record.errorMessage = error instanceof Error ? error.message : String(error);
      result.errors.push(record.errorMessage);
      this.expireEntries(record);
      this.completed(record, result, true);
      return result;
    }
    record.isHealthy = true;
    record.errorMessage = null;
    record.lastDiscovery = this.deps.clock.now();
    result.errors.push(...scan.problems);
    const found = this.sightings(record, scan.servers, result);
    result.mcp_servers_found = found.length;
    const byName = new Map(found.map((f) => [f.name, f]));
    // A server removed meanwhile (DELETE through REST) is no longer this source's: found again, it
    // is registered again.
    for (const name of record.registered.keys()) {
      if (this.deps.fleet.get(name)?.spec.source !== "discovery") record.registered.delete(name);
    }
    const decisions = planCycle(this.holdingsOf(record), found, {
      mode: record.mode,
      autoRegister: this.deps.settings.autoRegister,
    });
    for (const f of found) {
      const entry = this.held.pending.get(f.name) ?? this.held.quarantined.get(f.name);
      if (entry?.sourceId === record.id) entry.lastSeenAt = this.deps.clock.now();
    }
    for (const decision of decisions) {
      try {
        await this.apply(record, decision, byName.get(decision.name), result);
      } catch (error) {
        // A store or fleet failure on one server does not end the cycle for the others.
        result.errors.push(`${decision.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    this.completed(record, result, false);
    return result;
  }

  /** Registers a quarantined definition an operator approved; throws ValidationFailure's detail. */
  async registerApproved(entry: QuarantineEntry): Promise<void> {
    const spec = this.validSpec(entry.name, entry.definition);
    const record = this.held.sources.get(entry.sourceId);
    this.refuseForeign(entry.name, record);
    await this.install(spec, entry.group, record, entry.fingerprint);
  }

  private sightings(
    record: SourceRecord,
    servers: readonly DiscoveredServer[],
    result: SourceResult,
  ): Found[] {
    const found: Found[] = [];
    const names = new Set<string>();
    for (const server of servers) {
      if (names.has(server.name)) {
        result.errors.push(`${server.name}: reported twice by the source; the first one is kept`);
        continue;
      }
      names.add(server.name);
      const digest = this.deps.hasher.sha256Hex(this.deps.hasher.canonicalJson(fingerprintInput(server)));
      const fingerprint = fingerprintFromDigest(digest);
      // An operator rejected this very definition: ignored until it changes. A registered server
      // whose rejected update is still reported counts as unchanged, so it is not deregistered.
      if (this.held.rejected.get(server.name) === fingerprint) {
        const registered = record.registered.get(server.name);
        if (registered !== undefined) found.push({ name: server.name, fingerprint: registered, server });
        continue;
      }
      found.push({ name: server.name, fingerprint, server });
    }
    return found;
  }

  private holdingsOf(record: SourceRecord) {
    const own = <E extends { sourceId: string; fingerprint: string }>(map: Map<string, E>) =>
      new Map([...map].filter(([, e]) => e.sourceId === record.id).map(([name, e]) => [name, e.fingerprint]));
    const retrying = new Set(
      [...this.held.quarantined]
        .filter(([, e]) => e.sourceId === record.id && RETRIED_REASONS.has(reasonCode(e) as QuarantineReason))
        .map(([name]) => name),
    );
    return {
      registered: record.registered,
      pending: own(this.held.pending),
      quarantined: own(this.held.quarantined),
      retrying,
    };
  }

  private async apply(
    record: SourceRecord,
    decision: CycleDecision,
    found: Found | undefined,
    result: SourceResult,
  ): Promise<void> {
    const { name } = decision;
    switch (decision.action) {
      case "release": {
        const map = decision.from === "pending" ? this.held.pending : this.held.quarantined;
        if (map.get(name)?.sourceId === record.id) map.delete(name);
        return;
      }
      case "deregister":
        record.registered.delete(name);
        if (await this.uninstall(name)) result.deregistered += 1;
        return;
      case "review": {
        const pending = this.held.pending.get(name);
        if (!pending) return;
        this.held.pending.delete(name);
        this.quarantine(
          record,
          found?.server ?? pending,
          pending.fingerprint,
          "awaiting_approval",
          "approve to register it",
        );
        result.quarantined += 1;
        return;
      }
      case "hold":
        if (!found) return;
        return this.hold(record, found, result);
      case "register":
      case "update":
        if (!found) return;
        return this.admit(record, found, decision.action, result);
    }
  }

  private hold(record: SourceRecord, found: Found, result: SourceResult): void {
    this.held.quarantined.delete(found.name);
    try {
      this.validSpec(found.name, found.server.definition);
      this.refuseForeign(found.name, record);
    } catch (error) {
      this.held.pending.delete(found.name);
      this.failed(record, found, error, result);
      return;
    }
    const now = this.deps.clock.now();
    this.held.pending.set(found.name, {
      ...this.entryOf(record, found.server, found.fingerprint),
      discoveredAt: now,
    });
    result.pending += 1;
  }

  private async admit(
    record: SourceRecord,
    found: Found,
    action: "register" | "update",
    result: SourceResult,
  ): Promise<void> {
    const previous = this.held.quarantined.get(found.name);
    this.held.pending.delete(found.name);
    this.held.quarantined.delete(found.name);
    const { settings, clock } = this.deps;
    try {
      const spec = this.validSpec(found.name, found.server.definition);
      this.refuseForeign(found.name, record);
      // Registered by the discovery before a restart or a takeover, and no source's yet: taken
      // over without the rate, cap and probe checks (it was admitted once already).
      if (action === "register" && this.unowned(found.name)) {
        await this.install(spec, found.server.group, record, found.fingerprint);
        return;
      }
      if (action === "register" && !withinSourceCap(record.registered.size, settings.maxServersPerSource)) {
        throw new ValidationFailure(
          "source_limit",
          `the source holds max_servers_per_source (${settings.maxServersPerSource}) servers already`,
        );
      }
      if (spec.mode === "remote") await this.probe(spec);
      if (action === "register") {
        const rate = admitRegistration(record.rateHistory, clock.now(), settings.maxRegistrationsPerMinute);
        record.rateHistory = rate.history;
        if (!rate.admitted) {
          throw new ValidationFailure(
            "rate_limited",
            `the source registered max_registrations_per_minute (${settings.maxRegistrationsPerMinute}) servers in the last minute`,
          );
        }
      }
      await this.install(spec, found.server.group, record, found.fingerprint);
      if (action === "register") result.registered += 1;
      else result.updated += 1;
    } catch (error) {
      this.failed(record, found, error, result, previous);
    }
  }

  private async probe(spec: ServerSpec): Promise<void> {
    try {
      await this.deps.probe.probe(spec);
    } catch (error) {
      throw new ValidationFailure(
        "health_check_failed",
        error instanceof Error ? error.message : String(error),
      );
    }
  }

  /** Quarantines a failed validation, or drops it (`quarantine_on_failure: false`); rethrows others. */
  private failed(
    record: SourceRecord,
    found: Found,
    error: unknown,
    result: SourceResult,
    previous?: QuarantineEntry,
  ): void {
    if (!(error instanceof ValidationFailure)) throw error;
    if (this.deps.settings.quarantineOnFailure) {
      this.quarantine(record, found.server, found.fingerprint, error.reason, error.detail, previous);
      result.quarantined += 1;
      return;
    }
    result.errors.push(`${found.name}: ${error.reason}: ${error.detail} (dropped)`);
    this.deps.logger.warn(
      { source_id: record.id, mcp_server_id: found.name, reason: error.reason },
      "discovered server failed validation and was dropped",
    );
  }

  private quarantine(
    record: SourceRecord,
    server: Pick<DiscoveredServer, "name" | "definition" | "connectionInfo" | "group">,
    fingerprint: string,
    reason: QuarantineReason,
    detail: string,
    previous?: QuarantineEntry,
  ): void {
    const again = previous !== undefined && reasonCode(previous) === reason;
    this.held.quarantined.set(server.name, {
      ...this.entryOf(record, server, fingerprint),
      reason: `${reason}: ${detail}`,
      quarantinedAt: again ? previous.quarantinedAt : this.deps.clock.now(),
    });
    // A retry that fails for the same reason is the same quarantine: announced once.
    if (again) return;
    this.deps.bus.publish([
      { type: "DiscoveredServerQuarantined", mcp_server_id: server.name, source_id: record.id, reason },
    ]);
  }

  private entryOf(
    record: SourceRecord,
    server: Pick<DiscoveredServer, "name" | "definition" | "connectionInfo" | "group">,
    fingerprint: string,
  ) {
    return {
      name: server.name,
      sourceId: record.id,
      sourceType: record.type,
      mode: record.mode,
      definition: server.definition,
      group: server.group,
      connectionInfo: server.connectionInfo,
      fingerprint,
      lastSeenAt: this.deps.clock.now(),
    };
  }

  private validSpec(name: string, definition: Readonly<Record<string, unknown>>): ServerSpec {
    const verdict = this.deps.check(name, definition);
    if (!verdict.ok) throw new ValidationFailure("invalid_definition", verdict.problem);
    return verdict.spec;
  }

  /** A discovered server in the fleet that no source of this fleet manager has registered. */
  private unowned(name: string): boolean {
    if (this.deps.fleet.get(name)?.spec.source !== "discovery") return false;
    return ![...this.held.sources.values()].some((s) => s.registered.has(name));
  }

  /** A name held by a declared, REST-registered or hot-loaded server or a group, or another source. */
  private refuseForeign(name: string, record: SourceRecord | undefined): void {
    const { fleet, groups } = this.deps;
    const server = fleet.get(name);
    const owner = [...this.held.sources.values()].find((s) => s.registered.has(name));
    const foreign =
      groups.has(name) ||
      (server !== undefined && server.spec.source !== "discovery") ||
      (owner !== undefined && owner !== record);
    if (foreign) {
      throw new ValidationFailure("name_conflict", `the id '${name}' belongs to another MCP server or group`);
    }
  }

  /** Registers or replaces the discovered server, and joins the group it names when that exists. */
  private async install(
    spec: ServerSpec,
    group: string | undefined,
    record: SourceRecord | undefined,
    fingerprint: string,
  ): Promise<void> {
    const { fleet, groups, serverConfigs, clock } = this.deps;
    await fleet.exclusive(spec.id, async () => {
      const current = fleet.get(spec.id);
      if (current && current.spec.source !== "discovery") {
        throw new ValidationFailure("name_conflict", `the id '${spec.id}' belongs to another MCP server`);
      }
      // Taken over unchanged (after a restart or a takeover): left running as it is.
      if (current && sameSpec(current.spec, spec)) return;
      // Saved first, as for a REST registration: a write the store refused changes nothing.
      await serverConfigs.save(spec, clock.now() / 1000);
      if (current) await fleet.replace(spec, ["definition"]);
      else fleet.register(spec);
    });
    for (const owner of this.held.sources.values()) if (owner !== record) owner.registered.delete(spec.id);
    record?.registered.set(spec.id, fingerprint);
    if (group && groups.has(group) && !groups.memberIds(group).includes(spec.id)) {
      groups.addMember(group, { id: spec.id, weight: 1, priority: 1 });
    }
  }

  /** Removes a server the discovery registered (never another one); false when it was not there. */
  async uninstall(name: string): Promise<boolean> {
    const { fleet, groups, serverConfigs } = this.deps;
    return fleet.exclusive(name, async () => {
      const server = fleet.get(name);
      if (server?.spec.source !== "discovery") return false;
      await serverConfigs.delete(name);
      for (const group of groups.groupsOf(name)) groups.removeMember(group, name);
      await fleet.remove(name);
      return true;
    });
  }

  /** Entries of a source whose scans keep failing are forgotten after their TTL. */
  private expireEntries(record: SourceRecord): void {
    const ttl = entryTtlSeconds(this.deps.settings.refreshIntervalS);
    const now = this.deps.clock.now();
    for (const map of [this.held.pending, this.held.quarantined] as Map<
      string,
      { sourceId: string; lastSeenAt: number }
    >[]) {
      for (const [name, entry] of map) {
        if (entry.sourceId === record.id && isExpired(entry.lastSeenAt, now, ttl)) map.delete(name);
      }
    }
  }

  private completed(record: SourceRecord, result: SourceResult, failed: boolean): void {
    this.deps.bus.publish([
      {
        type: "DiscoveryCycleCompleted",
        source_id: record.id,
        source_type: record.type,
        mcp_servers_found: result.mcp_servers_found,
        registered: result.registered,
        updated: result.updated,
        deregistered: result.deregistered,
        quarantined: result.quarantined,
        failed,
      },
    ]);
  }
}

/** Specs compared as stored (plain data), so an unchanged definition is not restarted. */
function sameSpec(a: ServerSpec, b: ServerSpec): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The detail of a failed approval, or rethrows what is not a validation failure. */
export function approvalProblem(error: unknown): string {
  if (error instanceof ValidationFailure) return `${error.reason}: ${error.detail}`;
  throw error;
}
