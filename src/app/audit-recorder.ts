import type { DomainEvent } from "../domain/events.js";
import { BatchedWriter } from "./batched-writer.js";
import type { EventBus } from "./event-bus.js";
import type { AuditRecord, AuditTrail } from "./ports/audit-trail.js";
import type { Logger } from "./ports/logger.js";

/** Refusals of the caller, as opposed to failures of the tool or its server (also read by tracing). */
export const DENIALS = new Set([
  "ToolAccessDeniedError",
  "ToolDigestMismatchError",
  "TenantQuotaExceeded",
  "AuthorizationDenied",
  "AccessDeniedError",
  "RateLimitExceeded",
  "EgressPolicyDeniedError",
  "EgressPolicyApprovalRequiredError",
  "ToolWithdrawnError",
  "ValidatorDenied",
  "SessionSuspendedError",
]);

type InvocationEvent = Extract<DomainEvent, { type: "ToolInvocationCompleted" | "ToolInvocationFailed" }>;

/**
 * A tool invocation's outcome as the audit trail records it: `success` when the server answered (a
 * tool's own error result included), `denied` when refused before it ran, `failure` otherwise.
 */
export function invocationOutcome(event: InvocationEvent): "success" | "failure" | "denied" {
  if (event.type === "ToolInvocationCompleted") return "success";
  return DENIALS.has(event.error_type) ? "denied" : "failure";
}

/** The audit record of a tool invocation (`tool_invocation`), with the fields compliance exports use. */
export function invocationRecord(event: DomainEvent): AuditRecord | null {
  if (event.type !== "ToolInvocationCompleted" && event.type !== "ToolInvocationFailed") return null;
  const status = invocationOutcome(event);
  return {
    id: event.event_id,
    occurred_at: event.occurred_at,
    actor: event.requested_by ?? "anonymous",
    action: "tool_invocation",
    target: event.mcp_server_id,
    outcome: status,
    details: {
      "mcp.server.id": event.mcp_server_id,
      "hangar.route.backend": event.route_backend ?? event.mcp_server_id,
      "mcp.tool.name": event.tool_name,
      "mcp.tool.status": status,
      call_id: event.call_id,
      duration_ms: event.duration_ms,
      ...(event.type === "ToolInvocationFailed" && { error_type: event.error_type }),
    },
    tenant_id: event.tenant_id ?? null,
  };
}

/**
 * Appends an audit record for every tool invocation, in batches, off the call path. For a call
 * through a group the record names the group (`mcp.server.id`) and the member that served it
 * (`hangar.route.backend`).
 */
export class AuditRecorder {
  private readonly writer: BatchedWriter<AuditRecord>;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly deps: { bus: EventBus; audit: AuditTrail; logger: Logger }) {
    this.writer = new BatchedWriter<AuditRecord>({
      write: (batch) => deps.audit.append(batch),
      onFailed: (error, count) =>
        deps.logger.error(
          { err: String(error), records: count },
          "audit records not written; kept for the next write",
        ),
      onDropped: (count) =>
        deps.logger.error({ records: count }, "audit trail behind: oldest pending records dropped"),
    });
  }

  start(): void {
    this.unsubscribe ??= this.deps.bus.subscribe((event) => {
      const record = invocationRecord(event);
      if (record) this.writer.push(record);
    });
  }

  /** Writes what is pending; resolves when written (a failure is logged and the records kept). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.writer.close();
  }
}
