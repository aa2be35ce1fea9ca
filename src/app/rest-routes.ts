import type { AccessRule } from "./admit.js";
import { OPERATIONS as op } from "./catalog.js";
import type { Operation } from "./operation.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** How a query parameter is read: its first value as given, an integer, or a boolean word. */
export type QueryType = "string" | "integer" | "boolean";

/**
 * How an operation is offered as a REST route (spec 1 §4): method and path, how the request
 * becomes the operation's input, the success status, and the REST shape of the result where it
 * differs from the operation's. The route's permission is the operation's: nothing here repeats it.
 */
export interface RestBinding {
  readonly method: HttpMethod;
  /** Relative to `/api`, in the router's `:param` form; a collection ends with `/`. */
  readonly path: string;
  readonly operation: Operation;
  /** The status of a success (200 when absent); 204 answers no body. */
  readonly status?: number;
  /** Input field <- path parameter. */
  readonly params?: Readonly<Record<string, string>>;
  /** Input field <- query parameter and how it is read. */
  readonly query?: Readonly<Record<string, readonly [name: string, type: QueryType]>>;
  /**
   * The JSON body: its fields are the input's (`fields`; a field that repeats one the path gives is
   * refused), or it is one field of the input (`{into}`); absent, it is not read.
   */
  readonly body?: "fields" | { readonly into: string };
  /** Input fields the route itself fixes (`start: false`, `approve: true`). */
  readonly fixed?: Readonly<Record<string, unknown>>;
  /** The result as the REST route answers it, when that differs from the operation's. */
  readonly present?: (result: never) => unknown;
  /** Response headers of every answer, refusals included (the discovery preview header). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Answered in the approval routes' flat shapes (`{error:'<message>'}`, spec 1 §4). */
  readonly flat?: boolean;
  /**
   * Spec 2 §5 gives the route no permission: with authentication on it is denied whoever asks
   * (403), whatever its operation would need elsewhere.
   */
  readonly deniedWithAuth?: true;
  /**
   * Tool-level failures (the catalogue's "any other" types a `gateway_call` outcome names with its
   * message: `ToolAccessDeniedError`, `CircuitBreakerOpen`, ...) are answered in the domain shape
   * with their own status and message instead of the generic 500 (docs/rest-api.md "Calling a tool"),
   * and the call stops when its caller's connection closes.
   */
  readonly toolErrors?: true;
}

/** Spec 1 "Discovery": source registration, update, deletion, scan and enable are preview. */
export const PREVIEW_HEADER = "X-Gateway-Preview";
export const PREVIEW_VALUE = "discovery-source-management";
const preview = { [PREVIEW_HEADER]: PREVIEW_VALUE } as const;

const SERVER = "/mcp_servers/:id";
const id = { mcp_server: "id" } as const;
const group = { group: "id" } as const;
const entry = { entry_id: "id" } as const;
/** A discovery source's routes by id: the id from the path, the fields from the body, preview. */
const sourceFields = { params: { source_id: "id" }, body: "fields", headers: preview } as const;

/** A binding; `present` typed by the operation's result. */
function bind<O>(
  method: HttpMethod,
  path: string,
  operation: Operation<never, O> | Operation<import("zod").ZodType, O>,
  options: Omit<RestBinding, "method" | "path" | "operation" | "present"> & {
    present?: (result: Awaited<O>) => unknown;
  } = {},
): RestBinding {
  return { method, path, operation: operation as Operation, ...(options as Partial<RestBinding>) };
}

/** Every REST route of `/api` that runs an operation (spec 1 §4), as data. */
export const REST_BINDINGS: readonly RestBinding[] = [
  // MCP servers
  bind("GET", "/mcp_servers/", op.listServers, {
    query: { state_filter: ["state", "string"] },
    present: (result) => ({ mcp_servers: result.mcp_servers }),
  }),
  bind("POST", "/mcp_servers/", op.registerServer, { status: 201, body: "fields" }),
  bind("GET", SERVER, op.getServer, {
    params: id,
    // The REST detail object has no tool policy summary (the tool view does).
    present: (result) => {
      if (!("tools_policy" in result)) return result;
      const { tools_policy: _policy, ...detail } = result;
      return detail;
    },
  }),
  bind("PUT", SERVER, op.updateServer, { params: id, body: "fields" }),
  bind("PATCH", SERVER, op.updateServer, { params: id, body: "fields" }),
  bind("DELETE", SERVER, op.deleteServer, { params: id, body: "fields" }),
  bind("POST", `${SERVER}/start`, op.startServer, { params: id, body: "fields" }),
  bind("POST", `${SERVER}/stop`, op.stopServer, { params: id, body: "fields" }),
  bind("POST", `${SERVER}/block`, op.blockServer, { params: id, body: "fields" }),
  bind("GET", `${SERVER}/tools`, op.serverTools, {
    params: id,
    fixed: { start: false },
    present: (result) => ({ tools: result.tools }),
  }),
  bind("GET", `${SERVER}/tools/history`, op.toolHistory, {
    params: id,
    query: { limit: ["limit", "integer"], from_position: ["from_position", "integer"] },
  }),
  bind("GET", `${SERVER}/health`, op.serverHealth, { params: id }),
  bind("GET", `${SERVER}/logs`, op.serverLogs, { params: id, query: { lines: ["lines", "integer"] } }),
  // L7 egress policy: POST and PUT are identical (attach, or replace the policy the server has).
  bind("GET", `${SERVER}/l7_policy`, op.getL7Policy, { params: id }),
  bind("POST", `${SERVER}/l7_policy`, op.setL7Policy, { params: id, body: { into: "policy" } }),
  bind("PUT", `${SERVER}/l7_policy`, op.setL7Policy, { params: id, body: { into: "policy" } }),
  bind("DELETE", `${SERVER}/l7_policy`, op.deleteL7Policy, { params: id, body: "fields" }),
  // Server catalog (spec 1 "Endpoints listed only in an earlier revision": served again)
  bind("GET", "/catalog/", op.listCatalogEntries, {
    query: {
      search: ["search", "string"],
      tags: ["tags", "string"],
      limit: ["limit", "integer"],
      offset: ["offset", "integer"],
    },
  }),
  bind("POST", "/catalog/", op.createCatalogEntry, { status: 201, body: "fields" }),
  bind("GET", "/catalog/:id", op.getCatalogEntry, { params: entry }),
  bind("DELETE", "/catalog/:id", op.deleteCatalogEntry, { params: entry, body: "fields" }),
  bind("POST", "/catalog/:id/deploy", op.deployCatalogEntry, { status: 201, params: entry, body: "fields" }),
  // Governance
  bind("POST", "/admin/tools/:server/:tool/withdraw", op.withdrawTool, {
    params: { mcp_server: "server", tool: "tool" },
    body: "fields",
  }),
  bind("POST", "/admin/tools/:server/:tool/restore", op.restoreTool, {
    params: { mcp_server: "server", tool: "tool" },
    body: "fields",
  }),
  bind("POST", "/sessions/:session_id/suspend", op.suspendSession, {
    params: { session_id: "session_id" },
    body: "fields",
  }),
  bind("DELETE", "/sessions/:session_id/suspend", op.resumeSession, {
    params: { session_id: "session_id" },
    body: "fields",
  }),
  bind("POST", "/agent/policy", op.setAgentPolicy, { body: "fields", deniedWithAuth: true }),
  // Groups
  bind("GET", "/groups/", op.listGroups, { present: (result) => ({ groups: result.groups }) }),
  bind("POST", "/groups/", op.createGroup, { status: 201, body: "fields" }),
  bind("GET", "/groups/:id", op.getGroup, { params: group }),
  // Beside the group object (whose fields spec 1 fixes): docs/rest-api.md "Groups".
  bind("GET", "/groups/:id/settings", op.groupSettings, { params: group }),
  bind("PUT", "/groups/:id", op.updateGroup, { params: group, body: "fields" }),
  bind("DELETE", "/groups/:id", op.deleteGroup, { params: group, body: "fields" }),
  bind("POST", "/groups/:id/rebalance", op.rebalanceGroup, {
    params: group,
    body: "fields",
    present: (result) => ({ status: result.status, group_id: result.group_id }),
  }),
  bind("POST", "/groups/:id/members", op.addGroupMember, {
    status: 201,
    params: group,
    body: { into: "body" },
  }),
  bind("DELETE", "/groups/:id/members/:member", op.removeGroupMember, {
    params: { group: "id", member: "member" },
    body: "fields",
  }),
  // Discovery
  bind("GET", "/discovery/sources", op.discoverySources),
  bind("POST", "/discovery/sources", op.registerDiscoverySource, {
    status: 201,
    body: "fields",
    headers: preview,
  }),
  bind("PUT", "/discovery/sources/:id", op.updateDiscoverySource, sourceFields),
  bind("DELETE", "/discovery/sources/:id", op.deleteDiscoverySource, sourceFields),
  bind("POST", "/discovery/sources/:id/scan", op.scanDiscoverySource, sourceFields),
  bind("PUT", "/discovery/sources/:id/enable", op.enableDiscoverySource, sourceFields),
  bind("GET", "/discovery/pending", op.listPending),
  bind("GET", "/discovery/quarantined", op.listQuarantined),
  bind("POST", "/discovery/approve/:name", op.approveDiscovered, {
    params: { name: "name" },
    fixed: { approve: true },
    body: "fields",
  }),
  bind("POST", "/discovery/reject/:name", op.approveDiscovered, {
    params: { name: "name" },
    fixed: { approve: false },
    body: "fields",
  }),
  // System, tools, configuration
  bind("GET", "/system/", op.systemInfo),
  bind("GET", "/system/me", op.whoami),
  bind("GET", "/system/replicas", op.listReplicas),
  bind("GET", "/tools/", op.listTools),
  // One tool call, as one of gateway_call's (docs/rest-api.md "Calling a tool").
  bind("POST", "/tools/call", op.callTool, { body: "fields", toolErrors: true }),
  bind("GET", "/config/", op.durableConfig),
  bind("POST", "/config/reload", op.reloadConfig, {
    body: "fields",
    present: ({ status: _status, message: _message, ...result }) => ({
      status: "reloaded",
      result: { success: true, ...result },
    }),
  }),
  bind("POST", "/config/export", op.exportRunningConfig, { body: "fields" }),
  bind("POST", "/config/backup", op.backupConfig, { body: "fields" }),
  bind("GET", "/config/diff", op.diffConfig),
  // Approvals (decisions "Approvals"), answered in their own flat shapes
  bind("GET", "/approvals", op.listApprovals, {
    flat: true,
    query: { state: ["state", "string"], provider_id: ["provider_id", "string"] },
  }),
  bind("GET", "/approvals/:id", op.getApproval, { flat: true, params: { approval_id: "id" } }),
  bind("POST", "/approvals/:id/resolve", op.resolveApproval, {
    flat: true,
    params: { approval_id: "id" },
    body: "fields",
  }),
  // Observability and maintenance (spec 1 "Endpoints listed only in an earlier revision": served again)
  bind("GET", "/observability/audit", op.auditRecords, {
    query: {
      mcp_server_id: ["mcp_server_id", "string"],
      tool_name: ["tool_name", "string"],
      principal_id: ["principal_id", "string"],
      action: ["action", "string"],
      outcome: ["outcome", "string"],
      since: ["since", "string"],
      until: ["until", "string"],
      limit: ["limit", "integer"],
      cursor: ["cursor", "string"],
    },
  }),
  bind("GET", "/observability/security", op.securityEvents, {
    query: { since: ["since", "string"], limit: ["limit", "integer"], before: ["before", "integer"] },
  }),
  bind("GET", "/observability/alerts", op.activeAlerts, { query: { level: ["level", "string"] } }),
  bind("POST", "/maintenance/compact", op.compactStream, { body: "fields" }),
  // Metrics (spec 1 "Endpoints listed only in an earlier revision": served again)
  bind("GET", "/observability/metrics", op.metricsSnapshot),
  bind("GET", "/observability/metrics/history", op.metricsHistory, {
    // Read as text: the operation answers a non-integer as it answers a window out of range (422).
    query: { minutes: ["minutes", "string"] },
  }),
  // Auth management (spec 1 "Auth management"): the admin role only
  bind("POST", "/auth/keys", op.createApiKey, { status: 201, body: "fields" }),
  bind("DELETE", "/auth/keys/:key_id", op.revokeApiKey, { params: { key_id: "key_id" }, body: "fields" }),
  bind("GET", "/auth/keys", op.listApiKeys, {
    query: { principal_id: ["principal_id", "string"], include_revoked: ["include_revoked", "boolean"] },
  }),
  bind("GET", "/auth/roles/all", op.listAllRoles, {
    query: { include_builtin: ["include_builtin", "boolean"] },
  }),
  bind("GET", "/auth/roles", op.listBuiltinRoles),
  bind("POST", "/auth/roles", op.createRole, { status: 201, body: "fields" }),
  bind("POST", "/auth/roles/assign", op.assignRole, { body: "fields" }),
  bind("DELETE", "/auth/roles/revoke", op.revokeRole, { body: "fields" }),
  bind("GET", "/auth/roles/:role_name", op.getRole, { params: { role_name: "role_name" } }),
  bind("PATCH", "/auth/roles/:role_name", op.updateRole, {
    params: { role_name: "role_name" },
    body: "fields",
  }),
  bind("DELETE", "/auth/roles/:role_name", op.deleteRole, {
    status: 204,
    params: { role_name: "role_name" },
    body: "fields",
  }),
  bind("GET", "/auth/principals", op.listPrincipals),
  bind("GET", "/auth/principals/roles", op.principalRoles, {
    query: { principal_id: ["principal_id", "string"], scope: ["scope", "string"] },
  }),
  bind("GET", "/auth/permissions", op.listPermissions),
  bind("POST", "/auth/check-permission", op.checkPermission, { body: "fields" }),
  bind("GET", "/auth/policies/:scope/:target_id", op.getToolPolicy, {
    params: { scope: "scope", target_id: "target_id" },
  }),
  bind("POST", "/auth/policies/:scope/:target_id", op.setToolPolicy, {
    params: { scope: "scope", target_id: "target_id" },
    body: "fields",
  }),
  bind("DELETE", "/auth/policies/:scope/:target_id", op.deleteToolPolicy, {
    status: 204,
    params: { scope: "scope", target_id: "target_id" },
    body: "fields",
  }),
];

/**
 * Routes that run no operation, with who may use them (spec 2 §5): the WebSocket streams (their
 * handshake is admitted by the same rule), and `GET /metrics` outside `/api`, which needs what
 * `gateway_metrics` needs (metric labels name servers, tools and tenants' budgets).
 */
export const ROUTE_ONLY = {
  eventStream: { name: "ws-events", permissions: ["audit:read"], tenantAware: true },
  stateStream: { name: "ws-state", permissions: ["audit:read"], tenantAware: true },
  logStream: { name: "ws-logs", permissions: ["mcp_servers:read"] },
  metrics: { name: "metrics", permissions: op.gatewayMetrics.permissions },
  // The console's session (docs/console.md): who is signed in, and signing out. Any authenticated
  // caller; signing in (`POST /ui/session`) needs no credential but the API key its body carries.
  consoleSession: { name: "ui-session", permissions: [] },
} as const satisfies Record<string, AccessRule>;

/** Paths (relative to `/api`) of the route-only entries served under `/api`: the WebSocket streams. */
export const ROUTE_ONLY_PATHS: readonly (readonly [string, AccessRule])[] = [
  ["/ws/events", ROUTE_ONLY.eventStream],
  ["/ws/state", ROUTE_ONLY.stateStream],
  ["/ws/providers/:provider_id/logs", ROUTE_ONLY.logStream],
];

/** Everything under `/auth` needs the admin role, routes served later included (spec 2 §5). */
const ADMIN_ONLY: AccessRule = { name: "auth", permissions: [], adminOnly: true };

const BY_KEY = new Map<string, AccessRule>([
  ...REST_BINDINGS.filter((binding) => !binding.deniedWithAuth).map((binding): [string, AccessRule] => [
    `${binding.method} ${binding.path}`,
    binding.operation,
  ]),
  ...ROUTE_ONLY_PATHS.map(([path, rule]): [string, AccessRule] => [`GET ${path}`, rule]),
  ["GET /ui/session", ROUTE_ONLY.consoleSession],
  ["DELETE /ui/session", ROUTE_ONLY.consoleSession],
]);

/**
 * Who may call a route (method and router path relative to `/api`): its operation, or its
 * route-only entry; undefined when the catalog has none, which denies it whoever asks. A
 * collection's path matches with or without its trailing slash (the bare one redirects), and HEAD
 * is GET.
 */
export function routeRule(method: string, path: string): AccessRule | undefined {
  const verb = method === "HEAD" ? "GET" : method;
  const rule =
    BY_KEY.get(`${verb} ${path}`) ??
    BY_KEY.get(`${verb} ${path.endsWith("/") ? path.slice(0, -1) : `${path}/`}`);
  if (rule) return rule;
  return path === "/auth" || path.startsWith("/auth/") ? ADMIN_ONLY : undefined;
}
