import type { DomainEvent } from "../../domain/events.js";
import type { AccessKind, AccessPolicy, TenantPolicy } from "../../domain/policy/access-policy.js";
import { accessAllows } from "../../domain/policy/access-policy.js";
import type { ToolPolicy } from "../../domain/policy/tool-policy.js";
import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type { StoreRepositories } from "../ports/store-repositories.js";
import { AgentPolicies } from "./agent-policies.js";
import { SessionSuspensions } from "./session-suspensions.js";
import { StoredToolPolicies } from "./stored-tool-policies.js";
import { ToolWithdrawals } from "./tool-withdrawals.js";

/** One `interceptors.validators` entry (spec 2 §2): only `payload_size` exists. */
export interface PayloadSizeValidator {
  readonly type: "payload_size";
  readonly max_bytes: number;
}

/** What the governance reads from the configuration; replaced as a whole on reload. */
export interface GovernanceSettings {
  /** `tool_access.member.<tenant>`: on every server and group, besides their own policies. */
  readonly tenants: ReadonlyMap<string, TenantPolicy>;
  /** `mcp_servers.<id>.tool_access.member.<tenant>`, by server id, then tenant. */
  readonly serverTenants: ReadonlyMap<string, ReadonlyMap<string, TenantPolicy>>;
  /** `access:` of servers and groups, by id (ids of servers and groups never collide). */
  readonly access: ReadonlyMap<string, AccessPolicy>;
  /** `interceptors.validators`, in order. */
  readonly validators: readonly PayloadSizeValidator[];
}

export const NO_GOVERNANCE_SETTINGS: GovernanceSettings = {
  tenants: new Map(),
  serverTenants: new Map(),
  access: new Map(),
  validators: [],
};

/**
 * How long a replica trusts its copy of the shared governance records (stored policies, suspended
 * sessions, tool withdrawals, the agent policy) before reading them again on the call path: a
 * change made through another replica takes effect there within this time; one made through this
 * replica at once.
 */
export const SHARED_RECORDS_MAX_AGE_MS = 2_000;

/**
 * The governance layers over tool calls besides the servers' and groups' own policies: per-tenant
 * policies of the configuration, policies stored through REST, the agent-pushed policy, runtime
 * withdrawals, suspended sessions and payload validators. Computing "the policies over this call"
 * stays in one place (`routing/route-call.ts` `memberPolicies`), which asks `policiesOver`.
 */
export class Governance {
  private current: GovernanceSettings;
  readonly stored: StoredToolPolicies;
  readonly withdrawals: ToolWithdrawals;
  readonly agent: AgentPolicies;
  readonly sessions: SessionSuspensions;
  private readonly peerReads = new WeakMap<DomainEvent, Promise<void>>();

  constructor(
    settings: GovernanceSettings,
    deps: { repositories: StoreRepositories; clock: Clock; logger: Logger; maxAgeMs?: number },
  ) {
    this.current = settings;
    const shared = {
      clock: deps.clock,
      logger: deps.logger,
      maxAgeMs: deps.maxAgeMs ?? SHARED_RECORDS_MAX_AGE_MS,
    };
    this.stored = new StoredToolPolicies(deps.repositories.toolAccessPolicies, shared);
    this.sessions = new SessionSuspensions(deps.repositories.suspendedSessions, shared);
    this.withdrawals = new ToolWithdrawals(deps.repositories.toolWithdrawals, shared);
    this.agent = new AgentPolicies(deps.repositories.agentPolicy, shared);
  }

  get settings(): GovernanceSettings {
    return this.current;
  }

  /** Applies the governance parts of a (re)loaded configuration; runtime layers stay as they are. */
  configure(settings: GovernanceSettings): void {
    this.current = settings;
  }

  /** Reads the shared records now (at start). */
  async load(): Promise<void> {
    await Promise.all([
      this.stored.reload(),
      this.sessions.reload(),
      this.withdrawals.reload(),
      this.agent.reload(),
    ]);
  }

  /**
   * Reads the shared records again when the copy is old (before a call is admitted or a listing);
   * undefined, no promise, when every copy is fresh.
   */
  fresh(): Promise<void> | undefined {
    const reads = [this.stored.fresh(), this.sessions.fresh(), this.withdrawals.fresh(), this.agent.fresh()];
    if (reads.every((read) => read === undefined)) return undefined;
    return Promise.all(reads).then(() => undefined);
  }

  /**
   * Reads again, at once, the shared records another replica's event says it changed (a stored
   * policy, a withdrawal or restore, an agent policy push, a suspension); undefined for any other
   * event. One read per event, whoever asks (the replication and the front door's listings): the
   * read is kept with the event object the bus hands to every listener.
   */
  readAfterPeerEvent(event: DomainEvent): Promise<void> | undefined {
    const known = this.peerReads.get(event);
    if (known) return known;
    const read = this.readerOf(event)?.reload();
    if (read) this.peerReads.set(event, read);
    return read;
  }

  private readerOf(event: DomainEvent): { reload(): Promise<void> } | undefined {
    if (event.type === "SessionSuspended" || event.type === "SessionResumed") return this.sessions;
    if (event.type !== "ToolPolicyChanged") return undefined;
    if (event.change === "withdrawn" || event.change === "restored") return this.withdrawals;
    if (event.change === "agent_policy_set") return this.agent;
    return this.stored;
  }

  /**
   * The governance policies over a call reaching `serverId` governed by `groups`, for a caller of
   * `tenant`: the stored ones, the agent-pushed ones, and the tenant's (global and the server's own).
   */
  policiesOver(serverId: string, groups: readonly string[], tenant: string | null): ToolPolicy[] {
    const policies: ToolPolicy[] = [];
    this.addPoliciesOver(policies, serverId, groups, tenant);
    return policies;
  }

  /**
   * {@link policiesOver}, appended to `into`, in the same order: on every tool call, which most
   * often has none of them, this allocates nothing.
   */
  addPoliciesOver(
    into: (ToolPolicy | undefined)[],
    serverId: string,
    groups: readonly string[],
    tenant: string | null,
  ): void {
    if (this.stored.size > 0) into.push(...this.stored.policiesOver(serverId, groups));
    if (this.agent.size > 0) into.push(...this.agent.policiesOver(serverId, groups));
    if (tenant === null) return;
    const global = this.current.tenants.get(tenant);
    const own = this.current.serverTenants.get(serverId)?.get(tenant);
    if (global) into.push(global);
    if (own) into.push(own);
  }

  /** Whether any tenant policy exists for `tenant` (listings skip the per-caller pass otherwise). */
  hasTenantPolicies(tenant: string | null): boolean {
    if (tenant === null) return false;
    if (this.current.tenants.has(tenant)) return true;
    for (const byTenant of this.current.serverTenants.values()) if (byTenant.has(tenant)) return true;
    return false;
  }

  /**
   * Whether a caller of `tenant` may see and use a prompt (by name) or a resource (by URI, or URI
   * template in listings) of `serverId`, member of `groups`: the server's `access:`, each group's,
   * and the tenant's (global and the server's own) must all allow it.
   */
  accessAllows(
    serverId: string,
    groups: readonly string[],
    tenant: string | null,
    kind: AccessKind,
    key: string,
  ): boolean {
    const { access, tenants, serverTenants } = this.current;
    const policies: (AccessPolicy | undefined)[] = [
      access.get(serverId),
      ...groups.map((id) => access.get(id)),
    ];
    if (tenant !== null) {
      policies.push(tenants.get(tenant)?.access, serverTenants.get(serverId)?.get(tenant)?.access);
    }
    return accessAllows(policies, kind, key);
  }
}
