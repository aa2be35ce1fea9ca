/**
 * Who may call which REST route with authentication on (spec 2 §5 "Route permissions"), as data.
 * A route that is not listed is denied, whoever asks; the refusal is 403 `AccessDeniedError`.
 * Paths are relative to `/api`, in the router's `:param` form.
 */
export type RouteRequirement =
  /** Every listed permission is needed. */
  | { readonly kind: "permissions"; readonly permissions: readonly string[] }
  /** Any authenticated principal. */
  | { readonly kind: "authenticated" }
  /** The admin role, with no carve-out (everything under `/auth`). */
  | { readonly kind: "admin" };

export interface RoutePermission {
  readonly method: string;
  readonly path: string;
  readonly requirement: RouteRequirement;
  /**
   * A grant held only at tenant scope passes this route, confined to that tenant. Other routes
   * need a global grant.
   */
  readonly tenantAware: boolean;
}

const need = (...permissions: string[]): RouteRequirement => ({ kind: "permissions", permissions });

type Row = [methods: string, path: string, requirement: RouteRequirement, tenantAware?: boolean];

const SERVER = "/mcp_servers/:id";
const ROWS: Row[] = [
  ["GET", "/mcp_servers/", need("mcp_servers:read")],
  ["GET", SERVER, need("mcp_servers:read")],
  ["GET", `${SERVER}/tools`, need("mcp_servers:read")],
  ["GET", `${SERVER}/tools/history`, need("mcp_servers:read"), true],
  ["GET", `${SERVER}/health`, need("mcp_servers:read")],
  ["GET", `${SERVER}/logs`, need("mcp_servers:read")],
  // Registering needs what only admin holds (spec 2 "Roles"): write, lifecycle and policy:write.
  ["POST", "/mcp_servers/", need("mcp_servers:write", "mcp_servers:lifecycle", "policy:write")],
  ["PUT,PATCH", SERVER, need("mcp_servers:write")],
  ["DELETE", SERVER, need("mcp_servers:write", "mcp_servers:lifecycle")],
  ["POST", `${SERVER}/start`, need("mcp_servers:lifecycle")],
  ["POST", `${SERVER}/stop`, need("mcp_servers:lifecycle")],
  ["POST", `${SERVER}/block`, need("mcp_servers:lifecycle")],
  ["POST,DELETE", "/sessions/:session_id/suspend", need("mcp_servers:lifecycle")],
  ["POST", "/admin/tools/:server/:tool/withdraw", need("mcp_servers:lifecycle"), true],
  ["POST", "/admin/tools/:server/:tool/restore", need("mcp_servers:lifecycle"), true],
  ["GET", `${SERVER}/l7_policy`, need("policy:read")],
  ["POST,PUT,DELETE", `${SERVER}/l7_policy`, need("policy:write")],
  ["GET", "/groups/", need("group:read")],
  ["GET", "/groups/:id", need("group:read")],
  ["POST", "/groups/", need("group:create")],
  ["PUT", "/groups/:id", need("group:update")],
  ["POST", "/groups/:id/rebalance", need("group:update")],
  ["POST", "/groups/:id/members", need("group:update")],
  ["DELETE", "/groups/:id/members/:member", need("group:update")],
  ["DELETE", "/groups/:id", need("group:delete")],
  ["GET", "/discovery/sources", need("discovery:read")],
  ["GET", "/discovery/pending", need("discovery:read")],
  ["GET", "/discovery/quarantined", need("discovery:read")],
  ["POST", "/discovery/sources/:id/scan", need("discovery:trigger")],
  ["POST", "/discovery/sources", need("discovery:approve")],
  ["PUT,DELETE", "/discovery/sources/:id", need("discovery:approve")],
  ["PUT", "/discovery/sources/:id/enable", need("discovery:approve")],
  ["POST", "/discovery/approve/:name", need("discovery:approve")],
  ["POST", "/discovery/reject/:name", need("discovery:approve")],
  ["GET", "/config/", need("config:read")],
  ["GET", "/config/diff", need("config:read")],
  ["POST", "/config/export", need("config:read")],
  ["POST", "/config/backup", need("config:update")],
  ["POST", "/config/reload", need("config:reload")],
  ["GET", "/tools/", need("tool:list")],
  ["GET", "/system/", { kind: "authenticated" }],
  ["GET", "/system/me", { kind: "authenticated" }],
  ["GET", "/approvals", need("approval:read"), true],
  ["GET", "/approvals/:id", need("approval:read"), true],
  ["POST", "/approvals/:id/resolve", need("approval:resolve"), true],
  ["GET", "/ws/events", need("audit:read"), true],
  ["GET", "/ws/state", need("audit:read"), true],
  ["GET", "/ws/providers/:provider_id/logs", need("mcp_servers:read")],
];

export const ROUTE_PERMISSIONS: readonly RoutePermission[] = ROWS.flatMap(
  ([methods, path, requirement, tenantAware]) =>
    methods.split(",").map((method) => ({ method, path, requirement, tenantAware: tenantAware ?? false })),
);

const BY_KEY = new Map(ROUTE_PERMISSIONS.map((route) => [`${route.method} ${route.path}`, route]));

/** Everything under `/auth` needs the admin role. */
const ADMIN_ONLY: RoutePermission = {
  method: "*",
  path: "/auth/*",
  requirement: { kind: "admin" },
  tenantAware: false,
};

/**
 * The rule of a route (method and router path relative to `/api`), or undefined when the route is
 * not listed, which denies it. A collection's path matches with or without its trailing slash.
 */
export function routePermission(method: string, path: string): RoutePermission | undefined {
  if (path === "/auth" || path.startsWith("/auth/")) return ADMIN_ONLY;
  const verb = method === "HEAD" ? "GET" : method;
  return (
    BY_KEY.get(`${verb} ${path}`) ??
    BY_KEY.get(`${verb} ${path.endsWith("/") ? path.slice(0, -1) : `${path}/`}`)
  );
}
