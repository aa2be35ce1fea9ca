import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type { ToolWithdrawal, ToolWithdrawalRepository } from "../ports/tool-withdrawal-repository.js";
import { SharedReader } from "./shared-reader.js";

/** The runtime withdrawals of one tool: for every tenant, and/or for some tenants. */
interface Entry {
  all: boolean;
  readonly tenants: Set<string>;
}

/**
 * Tools withdrawn at runtime through `/admin/tools/{server}/{tool}/withdraw` (spec 1): an overlay
 * kept apart from the configuration, so a reload leaves it as it is. It is written through to the
 * shared store, so it outlives a restart, and a replica sharing the store (one started later too)
 * reads it at start and again within the configured age on the call path; a peer's
 * `ToolPolicyChanged` event makes a replica read it at once. Withdrawals declared in the
 * configuration are not kept here, so restoring never lifts them.
 *
 * `server` is the id the caller named: a server, or a group (then every call through the group).
 */
export class ToolWithdrawals {
  private entries = new Map<string, Entry>();
  private readonly reader: SharedReader<ToolWithdrawal[]>;

  constructor(
    private readonly repository: ToolWithdrawalRepository,
    deps: { clock: Clock; logger: Logger; maxAgeMs: number },
  ) {
    this.reader = new SharedReader(
      () => repository.list(),
      (records) => {
        const entries = new Map<string, Entry>();
        for (const record of records) add(entries, record.mcp_server_id, record.tool_name, record.tenant_id);
        this.entries = entries;
      },
      { ...deps, what: "tool_withdrawals" },
    );
  }

  /** Re-reads the store when the copy is older than the configured age. */
  fresh(): Promise<void> | undefined {
    return this.reader.fresh();
  }

  /** Re-reads the store now: at start, and when a peer announced a change. */
  reload(): Promise<void> {
    return this.reader.reload();
  }

  /** Withdraws the tool for `record.tenant_id`, or for every tenant when it is null. */
  async withdraw(record: ToolWithdrawal): Promise<void> {
    await this.repository.withdraw(record);
    add(this.entries, record.mcp_server_id, record.tool_name, record.tenant_id);
    // A read under way may predate the write and drop the entry again: read once more after it.
    await this.reader.reload();
  }

  /**
   * Restores the tool for one tenant (a withdrawal for every tenant stays), or with `tenant` null
   * removes the tool's whole runtime entry. True when a withdrawal was removed.
   */
  async restore(server: string, tool: string, tenant: string | null): Promise<boolean> {
    const removed = await this.repository.restore(server, tool, tenant);
    // The copy follows from the read; should it fail, the tool stays withdrawn here until the next.
    await this.reader.reload();
    return removed;
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

function add(entries: Map<string, Entry>, server: string, tool: string, tenant: string | null): void {
  const id = key(server, tool);
  const entry = entries.get(id) ?? { all: false, tenants: new Set<string>() };
  if (tenant === null) entry.all = true;
  else entry.tenants.add(tenant);
  entries.set(id, entry);
}

function key(server: string, tool: string): string {
  return `${server}\u0000${tool}`;
}
