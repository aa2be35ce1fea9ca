/**
 * The static permission manifest answered by `GET /auth/permissions` (spec 1 "Auth management"):
 * resource types and their actions as the route table and the built-in roles use them. Like the
 * specification's, it does not list every enforced permission (`*` wildcards, ids, and the
 * `provider:*` family of the built-in roles, which grants nothing over REST, are left out).
 */
export const PERMISSION_MANIFEST: readonly { resource_type: string; actions: readonly string[] }[] =
  Object.freeze([
    { resource_type: "mcp_servers", actions: ["read", "write", "lifecycle"] },
    { resource_type: "policy", actions: ["read", "write"] },
    { resource_type: "group", actions: ["read", "list", "create", "update", "delete"] },
    { resource_type: "discovery", actions: ["read", "trigger", "approve"] },
    { resource_type: "config", actions: ["read", "update", "reload"] },
    { resource_type: "tool", actions: ["list", "invoke"] },
    { resource_type: "approval", actions: ["read", "resolve"] },
    { resource_type: "audit", actions: ["read"] },
    { resource_type: "metrics", actions: ["read"] },
    { resource_type: "maintenance", actions: ["compact"] },
  ]);
