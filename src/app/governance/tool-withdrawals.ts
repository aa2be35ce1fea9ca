import type { DomainEvent } from "../../domain/events.js";

/** The runtime withdrawals of one tool: for every tenant, and/or for some tenants. */
interface Entry {
  all: boolean;
  readonly tenants: Set<string>;
}

/**
 * Tools withdrawn at runtime through `/admin/tools/{server}/{tool}/withdraw` (spec 1): an overlay
 * kept apart from the configuration, so a reload leaves it as it is; it is not persisted (the
 * specification asks only that it survive reload). Replicas sharing an event log apply the
 * withdrawals and restores their peers make as the events arrive (`applyPeerChange`); a replica
 * started later knows only those made after its start. Withdrawals declared in the configuration
 * are not kept here, so restoring never lifts them.
 *
 * `server` is the id the caller named: a server, or a group (then every call through the group).
 */
export class ToolWithdrawals {
  private readonly entries = new Map<string, Entry>();

  /** Withdraws the tool for one tenant, or for every tenant with `tenant` null. */
  withdraw(server: string, tool: string, tenant: string | null): void {
    const id = key(server, tool);
    const entry = this.entries.get(id) ?? { all: false, tenants: new Set<string>() };
    if (tenant === null) entry.all = true;
    else entry.tenants.add(tenant);
    this.entries.set(id, entry);
  }

  /**
   * Restores the tool for one tenant (a withdrawal for every tenant stays), or with `tenant` null
   * removes the tool's whole runtime entry. True when a withdrawal was removed.
   */
  restore(server: string, tool: string, tenant: string | null): boolean {
    const id = key(server, tool);
    const entry = this.entries.get(id);
    if (!entry) return false;
    if (tenant === null) {
      this.entries.delete(id);
      return true;
    }
    const removed = entry.tenants.delete(tenant);
    if (!entry.all && entry.tenants.size === 0) this.entries.delete(id);
    return removed;
  }

  /**
   * Applies a withdrawal or a restore another replica made, from its `ToolPolicyChanged` event;
   * other changes are left to their own readers. True when the event was one of the two.
   */
  applyPeerChange(event: DomainEvent): boolean {
    if (event.type !== "ToolPolicyChanged" || event.tool_name === undefined) return false;
    const tenant = event.tenant_id ?? null;
    if (event.change === "withdrawn") this.withdraw(event.mcp_server_id, event.tool_name, tenant);
    else if (event.change === "restored") this.restore(event.mcp_server_id, event.tool_name, tenant);
    else return false;
    return true;
  }

  /** Whether a caller of `tenant` (null: no tenant) may not call the tool on `server`. */
  isWithdrawn(server: string, tool: string, tenant: string | null): boolean {
    if (this.entries.size === 0) return false;
    const entry = this.entries.get(key(server, tool));
    if (!entry) return false;
    return entry.all || (tenant !== null && entry.tenants.has(tenant));
  }

  /** True when nothing is withdrawn (the common case, checked first on the call path). */
  get empty(): boolean {
    return this.entries.size === 0;
  }
}

function key(server: string, tool: string): string {
  return `${server}\u0000${tool}`;
}
