import { noApprovalGate } from "../../../domain/approval/approval-refusal.js";
import type { ApprovalService } from "../../approvals/approval-service.js";
import type { RequestContext } from "../../context.js";
import type { ApprovalRecord } from "../../ports/approval-repository.js";
import type { AppServices } from "../../services.js";

/** The approval gate, or the 503 of decisions "Approvals" when none is configured. */
export function requireGate(services: AppServices): ApprovalService {
  if (!services.approvals) throw noApprovalGate();
  return services.approvals;
}

/**
 * Whether the caller may see an approval: a caller confined to a tenant (a tenant-scoped grant)
 * sees that tenant's approvals only; another tenant's is answered like an unknown one (404).
 */
export function visibleTo(ctx: RequestContext): (approval: ApprovalRecord) => boolean {
  return (approval) => ctx.confinedTo === undefined || approval.tenant_id === ctx.confinedTo;
}

/** A text field that is absent, null or a string; anything else is refused by the caller. */
export function optionalText(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : undefined;
}
