import { type ParsedPermission, parsePermission } from "./permissions.js";

/** The built-in roles and their exact grants (spec 2 §5 "Roles"); they cannot be changed. */
export const BUILTIN_ROLES: Readonly<
  Record<string, { description: string; permissions: readonly string[] }>
> = Object.freeze({
  admin: { description: "Everything", permissions: ["*:*"] },
  "provider-admin": {
    description: "Manages MCP servers' policies, groups, discovery and approvals",
    permissions: [
      "providers:read",
      "policy:read",
      "policy:write",
      "provider:*",
      "group:*",
      "discovery:read",
      "discovery:trigger",
      "discovery:approve",
      "tool:invoke",
      "tool:list",
      "metrics:read",
      "approval:read",
      "approval:resolve",
    ],
  },
  developer: {
    description: "Uses and operates MCP servers",
    permissions: [
      "provider:read",
      "provider:list",
      "provider:start",
      "provider:load",
      "provider:load_verified",
      "provider:unload",
      "providers:read",
      "providers:write",
      "providers:lifecycle",
      "tool:invoke",
      "tool:list",
      "group:read",
      "group:list",
      "discovery:read",
    ],
  },
  viewer: {
    description: "Reads the fleet",
    permissions: [
      "providers:read",
      "provider:read",
      "provider:list",
      "tool:list",
      "metrics:read",
      "group:read",
      "group:list",
      "discovery:read",
    ],
  },
  auditor: {
    description: "Reads audit records, metrics and approvals",
    permissions: [
      "audit:read",
      "metrics:read",
      "provider:list",
      "group:list",
      "discovery:read",
      "approval:read",
    ],
  },
  "service-account": {
    description: "Calls tools",
    permissions: ["provider:read", "provider:list", "tool:invoke", "tool:list"],
  },
});

export function isBuiltinRole(name: string): boolean {
  return Object.hasOwn(BUILTIN_ROLES, name);
}

/** Parsed grants of a list of permission strings; malformed entries grant nothing. */
export function parseGrants(permissions: readonly string[]): ParsedPermission[] {
  return permissions.map(parsePermission).filter((grant) => grant !== null);
}
