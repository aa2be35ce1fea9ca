/** Who is calling. With authentication off every caller is the anonymous principal. */
export interface Principal {
  id: string;
  type: "anonymous" | "api_key" | "jwt" | "stdio";
  tenant_id: string | null;
  roles: readonly string[];
}

export const ANONYMOUS: Principal = Object.freeze({
  id: "anonymous",
  type: "anonymous",
  tenant_id: null,
  roles: Object.freeze([]) as readonly string[],
});

/** Which edge a request came through; decides presentation and some authorization rules. */
export type Channel = "rest" | "mcp-http" | "mcp-stdio";

export interface RequestContext {
  principal: Principal;
  authenticated: boolean;
  channel: Channel;
  /** Aborted when the caller goes away. */
  signal?: AbortSignal;
  /**
   * Set by authorization when only a tenant-scoped grant allowed the request: the operation sees
   * and changes that tenant's records only.
   */
  confinedTo?: string;
  /** Client address (after trusted proxies), for the login-attempt lockout and audit. */
  clientAddress?: string;
  /** The MCP session of the gateway's own HTTP endpoint the request belongs to (suspension is per session). */
  sessionId?: string;
  /**
   * Admitted by a grant for some ids only (see `Operation.checkedPerResource`): each resource the
   * operation acts on is checked again.
   */
  perResource?: true;
  /** REST: `METHOD /path` of the route, for the external policy engine's input. */
  route?: string;
  /** REST: the id the path names (its first parameter), for the external policy engine's input. */
  resourceId?: string;
}
