/**
 * Permissions are `resource:action` or `resource:action:id` strings (spec 2 §5). A grant matches a
 * required permission when each part matches: `*` matches anything, a grant without an id covers
 * every id, a grant with an id covers that id only.
 */
export interface ParsedPermission {
  readonly resource: string;
  readonly action: string;
  /** Null: any id. */
  readonly id: string | null;
}

const PART = /^[A-Za-z0-9_*.-]+$/;

/**
 * Whether `text` is a grant a role may list: `resource:action` or `resource:action:id`, every part
 * of letters, digits, `_`, `-`, `.` or `*` (stricter than {@link parsePermission}, which reads
 * what callers ask about).
 */
export function isGrantText(text: string): boolean {
  const parts = text.split(":");
  return parts.length >= 2 && parts.length <= 3 && parts.every((part) => PART.test(part));
}

/** Parses `resource:action[:id]`; null when malformed. The id may hold further colons. */
export function parsePermission(text: string): ParsedPermission | null {
  const first = text.indexOf(":");
  if (first <= 0) return null;
  const second = text.indexOf(":", first + 1);
  const resource = text.slice(0, first);
  const action = second === -1 ? text.slice(first + 1) : text.slice(first + 1, second);
  const id = second === -1 ? null : text.slice(second + 1);
  if (!PART.test(resource) || !PART.test(action) || id === "") return null;
  return { resource: canonicalResource(resource), action, id };
}

/**
 * The permission registry names `providers:*` as `mcp_servers:*` in the API (spec 2 "Roles"); the
 * singular `provider:*` family stays as it is and grants nothing over REST.
 */
function canonicalResource(resource: string): string {
  return resource === "providers" ? "mcp_servers" : resource;
}

/** Whether `grant` covers `required`. */
export function covers(grant: ParsedPermission, required: ParsedPermission): boolean {
  if (!coversSomeId(grant, required)) return false;
  if (grant.id === null || grant.id === "*") return true;
  return grant.id === required.id;
}

/** Whether `grant` covers `required` for at least one id (`tool:invoke:math` covers `tool:invoke` here). */
export function coversSomeId(grant: ParsedPermission, required: ParsedPermission): boolean {
  return (
    (grant.resource === "*" || grant.resource === required.resource) &&
    (grant.action === "*" || grant.action === required.action)
  );
}

/** `resource:action[:id]` of a parsed permission. */
export function formatPermission(permission: ParsedPermission): string {
  const base = `${permission.resource}:${permission.action}`;
  return permission.id === null ? base : `${base}:${permission.id}`;
}
