import type { GroupSnapshot } from "../../domain/group/group-snapshot.js";
import type { ServerSpec } from "../../domain/server/server-spec.js";
import type { Fleet } from "../fleet/fleet.js";
import type { GroupService, ManagedGroup } from "../groups/group-service.js";

/**
 * The in-memory state as one configuration document (what `POST /config/export` serialises and
 * `GET /config/diff` compares): the running configuration document, plus under `mcp_servers` the
 * servers and groups registered through REST, written as the file would declare them.
 *
 * Left out: hot-loaded servers (never persisted, gone at the next start), and group members that
 * name no top-level server of the document (they would read as inline servers without a command). Runtime
 * state that is not configuration (lifecycle states, stored policies, API keys) is not included.
 * Secrets are still in clear here: callers redact before showing it.
 */
export function runningDocument(base: unknown, fleet: Fleet, groups: GroupService): Record<string, unknown> {
  const document: Record<string, unknown> = isRecord(base) ? structuredClone(base) : {};
  const declared = isRecord(document.mcp_servers) ? document.mcp_servers : {};
  const servers: Record<string, unknown> = { ...declared };
  for (const server of fleet.list()) {
    if (server.spec.source === "api" && !Object.hasOwn(servers, server.spec.id))
      servers[server.spec.id] = serverEntry(server.spec);
  }
  // A group member must name a top-level server of the document to be read as a reference.
  const known = new Set(
    Object.entries(servers)
      .filter(([, entry]) => !isRecord(entry) || entry.mode !== "group")
      .map(([id]) => id),
  );
  for (const [id, group] of groups.list()) {
    if (group.source === "api" && !Object.hasOwn(servers, id)) servers[id] = groupEntry(group, known);
  }
  if (Object.keys(servers).length > 0 || Object.hasOwn(document, "mcp_servers"))
    document.mcp_servers = servers;
  return document;
}

/** A REST-registered server as a `mcp_servers.<id>` entry (the keys a registration can set). */
function serverEntry(spec: ServerSpec): Record<string, unknown> {
  return {
    mode: spec.mode,
    ...(spec.command && { command: [...spec.command] }),
    ...(spec.image !== undefined && { image: spec.image }),
    ...(spec.endpoint !== undefined && { endpoint: spec.endpoint }),
    ...(spec.args && { args: [...spec.args] }),
    ...(Object.keys(spec.env).length > 0 && { env: { ...spec.env } }),
    idle_ttl_s: spec.idle_ttl_s,
    health_check_interval_s: spec.health_check_interval_s,
    max_consecutive_failures: spec.max_consecutive_failures,
    ...(spec.description !== undefined && { description: spec.description }),
    ...(spec.max_concurrency !== undefined && { max_concurrency: spec.max_concurrency }),
    ...(spec.max_response_bytes !== undefined && { max_response_bytes: spec.max_response_bytes }),
    ...(spec.tool_policy && { tools: spec.tool_policy }),
  };
}

/** A REST-created group as a `mode: group` entry; `auto_start` is false, as REST groups are. */
function groupEntry(group: ManagedGroup, known: ReadonlySet<string>): Record<string, unknown> {
  const { settings, members } = group.snapshot as GroupSnapshot;
  return {
    mode: "group",
    strategy: settings.strategy,
    min_healthy: settings.min_healthy,
    auto_start: group.auto_start,
    ...(settings.description !== null && { description: settings.description }),
    health: {
      unhealthy_threshold: settings.unhealthy_threshold,
      healthy_threshold: settings.healthy_threshold,
    },
    circuit_breaker: { failure_threshold: settings.failure_threshold },
    ...(settings.canary && {
      canary: {
        ...(settings.canary.member !== null && { member: settings.canary.member }),
        split_pct: settings.canary.split_pct,
        pinned_tenants: { ...settings.canary.pinned_tenants },
      },
    }),
    ...(group.policy && { tools: group.policy }),
    members: members
      .filter((member) => known.has(member.id))
      .map((member) => {
        const tools = group.memberPolicies.get(member.id);
        return { id: member.id, weight: member.weight, priority: member.priority, ...(tools && { tools }) };
      }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
