import type { DomainEvent } from "../domain/events.js";
import type { EventBus } from "./event-bus.js";
import type { AuditRecord, AuditTrail } from "./ports/audit-trail.js";
import type { Logger } from "./ports/logger.js";

/** Records are written together at most this long after the first of them: one write per burst. */
const FLUSH_DELAY_MS = 100;
/** Records kept while the trail cannot be written; beyond it the oldest are dropped and logged. */
const MAX_PENDING = 10_000;
/** Refusals of the caller, as opposed to failures of the tool or its server. */
const DENIALS = new Set([
  "ToolAccessDeniedError",
  "ToolDigestMismatchError",
  "TenantQuotaExceeded",
  "AuthorizationDenied",
  "RateLimitExceeded",
  "EgressPolicyDeniedError",
  "EgressPolicyApprovalRequiredError",
  "ToolWithdrawnError",
  "ValidatorDenied",
  "SessionSuspendedError",
]);

/** The audit record of a tool invocation (`tool_invocation`), with the fields compliance exports use. */
export function invocationRecord(event: DomainEvent): AuditRecord | null {
  if (event.type !== "ToolInvocationCompleted" && event.type !== "ToolInvocationFailed") return null;
  const status =
    event.type === "ToolInvocationCompleted"
      ? "success"
      : DENIALS.has(event.error_type)
        ? "denied"
        : "failure";
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
  private pending: AuditRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly deps: { bus: EventBus; audit: AuditTrail; logger: Logger }) {}

  start(): void {
    this.unsubscribe ??= this.deps.bus.subscribe((event) => {
      const record = invocationRecord(event);
      if (!record) return;
      this.pending.push(record);
      if (this.pending.length > MAX_PENDING) {
        this.pending.shift();
        this.deps.logger.error({}, "audit trail behind: oldest pending record dropped");
      }
      this.timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
    });
  }

  /** Writes what is pending; resolves when written (a failure is logged and the records kept). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.writing = this.writing.then(async () => {
      const batch = this.pending;
      if (batch.length === 0) return;
      this.pending = [];
      try {
        await this.deps.audit.append(batch);
      } catch (error) {
        this.pending = [...batch, ...this.pending].slice(-MAX_PENDING);
        this.deps.logger.error(
          { err: String(error), records: batch.length },
          "audit records not written; kept for the next write",
        );
      }
    });
    return this.writing;
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.flush();
  }
}
