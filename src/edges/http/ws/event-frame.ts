import type { DomainEvent } from "../../../domain/events.js";
import { matchesAny } from "../../../domain/policy/fnmatch.js";
import type { StreamFilter } from "./client-frames.js";

/**
 * The wire form of a domain event (decisions "WebSocket /api/ws/events"): the event's `type`
 * becomes `event_type`, then the envelope, then the payload fields.
 */
export function eventFrame(event: DomainEvent): string {
  const { type, event_id, occurred_at, produced_by, ...payload } = event;
  return JSON.stringify({ event_type: type, event_id, occurred_at, produced_by, ...payload });
}

/** The server an event concerns, when it concerns one. */
export function eventServerId(event: DomainEvent): string | undefined {
  const id = (event as { mcp_server_id?: unknown }).mcp_server_id;
  return typeof id === "string" ? id : undefined;
}

/** The tenant an event belongs to, when its producer knew it. */
export function eventTenantId(event: DomainEvent): string | undefined {
  const id = (event as { tenant_id?: unknown }).tenant_id;
  return typeof id === "string" ? id : undefined;
}

/**
 * Both lists must match (AND); an empty list matches everything. An event that names no server
 * never matches a non-empty `mcp_server_ids`.
 */
export function matchesFilter(
  filter: StreamFilter,
  eventType: string,
  serverId: string | undefined,
): boolean {
  if (filter.event_types.length > 0 && !matchesAny(eventType, filter.event_types)) return false;
  if (filter.mcp_server_ids.length > 0) {
    return serverId !== undefined && filter.mcp_server_ids.includes(serverId);
  }
  return true;
}

/**
 * Tenant confinement (spec 2 §5): a principal confined to a tenant sees only events carrying that
 * tenant; events without a tenant are withheld from it, since nothing shows they are its own.
 * `tenantScope` null sees everything.
 */
export function visibleTo(tenantScope: string | null, tenantId: string | undefined): boolean {
  return tenantScope === null || tenantId === tenantScope;
}
