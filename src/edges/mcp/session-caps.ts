import type { Principal } from "../../app/context.js";
import { GatewayError } from "../../domain/errors.js";

/** The caps on open MCP sessions of one replica (`http.mcp_sessions`). */
export interface SessionCapLimits {
  /** All sessions of the replica (`max_sessions`). */
  readonly maxSessions: number;
  /** Sessions of one principal, by id (`max_per_principal`). */
  readonly perPrincipal: number;
  /** Sessions of one tenant's principals (`max_per_tenant`); tenantless principals have no such cap. */
  readonly perTenant: number;
}

/** One session's place under the caps; `release` frees it (any number of calls, freed once). */
export interface SessionSlot {
  release(): void;
}

/**
 * Counts the MCP sessions this replica holds against the caps of `http.mcp_sessions`, and admits a
 * new one only below every cap that applies: at a cap the answer is a refusal, never the eviction
 * of another session. With `perCaller` false (authentication off) callers cannot be told apart, so
 * only the replica-wide cap applies. Counts are kept per principal and per tenant, so admitting is
 * constant time whatever the number of sessions.
 */
export class SessionCaps {
  private total = 0;
  private readonly byPrincipal = new Map<string, number>();
  private readonly byTenant = new Map<string, number>();

  constructor(
    private readonly limits: SessionCapLimits,
    private readonly perCaller: boolean,
  ) {}

  /**
   * A slot for one more session of `principal`, taken at once (so that concurrent requests cannot
   * pass a cap together), or a `SessionLimitExceeded` naming the cap reached. With `force` the slot
   * is taken whatever the counts (a session rebuilt only to be ended, which frees it at once).
   */
  reserve(principal: Principal, force = false): SessionSlot | GatewayError {
    const principalKey = this.perCaller ? principal.id : null;
    const tenantKey = this.perCaller ? principal.tenant_id : null;
    if (!force) {
      const refusal =
        principalKey !== null && count(this.byPrincipal, principalKey) >= this.limits.perPrincipal
          ? capReached("max_per_principal", this.limits.perPrincipal, "per principal")
          : tenantKey !== null && count(this.byTenant, tenantKey) >= this.limits.perTenant
            ? capReached("max_per_tenant", this.limits.perTenant, "per tenant")
            : this.total >= this.limits.maxSessions
              ? capReached("max_sessions", this.limits.maxSessions, "in all")
              : null;
      if (refusal) return refusal;
    }
    this.total++;
    if (principalKey !== null) add(this.byPrincipal, principalKey, 1);
    if (tenantKey !== null) add(this.byTenant, tenantKey, 1);
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        this.total--;
        if (principalKey !== null) add(this.byPrincipal, principalKey, -1);
        if (tenantKey !== null) add(this.byTenant, tenantKey, -1);
      },
    };
  }

  /** Sessions counted now (held, or reserved by a request under way). */
  get size(): number {
    return this.total;
  }
}

function count(counts: Map<string, number>, key: string): number {
  return counts.get(key) ?? 0;
}

/** Adds `delta` to a count, dropping counts that reach zero so that the maps hold only open sessions. */
function add(counts: Map<string, number>, key: string, delta: number): void {
  const next = count(counts, key) + delta;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}

function capReached(key: keyof typeof CAP_KEYS, limit: number, scope: string): GatewayError {
  return new GatewayError(
    "SessionLimitExceeded",
    `Too many open MCP sessions: at most ${limit} ${scope} on this replica (http.mcp_sessions.${key}); end a session (DELETE) or let one expire to open another`,
    { cap: CAP_KEYS[key], limit },
  );
}

/** The configuration key each cap is read from, as the refusal's `details.cap` names it. */
const CAP_KEYS = {
  max_per_principal: "http.mcp_sessions.max_per_principal",
  max_per_tenant: "http.mcp_sessions.max_per_tenant",
  max_sessions: "http.mcp_sessions.max_sessions",
} as const;
