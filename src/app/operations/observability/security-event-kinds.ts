import type { DomainEvent } from "../../../domain/events.js";
import { DENIALS } from "../../audit-recorder.js";

/**
 * Which domain events are security decisions, and the category each is listed under in
 * `/observability/security`. An event type listed here may still be left out by its payload
 * (an egress verdict that allowed the call, a tool failure that was no refusal): see
 * {@link securityCategory}. Successful authentications and granted permissions are left out: they
 * are sampled (at most one per principal every 10 s) and say nothing an operator acts on.
 */
export const SECURITY_EVENT_TYPES = [
  "AuthenticationFailed",
  "AuthorizationDenied",
  "ToolInvocationFailed",
  "DigestMismatchEvent",
  "EgressPolicyEnforced",
  "ToolApprovalGranted",
  "ToolApprovalDenied",
  "ToolApprovalExpired",
  "ToolApprovalCancelled",
  "ApiKeyCreated",
  "ApiKeyRevoked",
  "RoleAssigned",
  "RoleRevoked",
  "SessionSuspended",
  "SessionResumed",
  "ToolPolicyChanged",
  "DiscoveredServerQuarantined",
  "DiscoveredServerApproved",
  "DiscoveredServerRejected",
  "McpServerStopped",
  "McpServerDied",
] as const satisfies readonly DomainEvent["type"][];

export type SecurityCategory =
  | "authentication"
  | "authorization"
  | "tool_access"
  | "digest_pin"
  | "egress"
  | "rate_limit"
  | "validator"
  | "session"
  | "approval"
  | "api_key"
  | "role"
  | "policy"
  | "discovery"
  | "server_block";

/** The category of a refused tool call, by the refusal's error type (the audit trail's denials). */
const REFUSAL_CATEGORIES: Readonly<Record<string, SecurityCategory>> = {
  ToolAccessDeniedError: "tool_access",
  ToolWithdrawnError: "tool_access",
  ToolDigestMismatchError: "digest_pin",
  EgressPolicyDeniedError: "egress",
  EgressPolicyApprovalRequiredError: "egress",
  RateLimitExceeded: "rate_limit",
  TenantQuotaExceeded: "rate_limit",
  AuthorizationDenied: "authorization",
  AccessDeniedError: "authorization",
  ValidatorDenied: "validator",
  SessionSuspendedError: "session",
};

/** The stop reason of a block (spec 1 §3). */
const BLOCK_REASON = "detection_enforcement:block";

/** The category of a security event, or null when this event of a listed type is not one. */
export function securityCategory(event: DomainEvent): SecurityCategory | null {
  switch (event.type) {
    case "AuthenticationFailed":
      return "authentication";
    case "AuthorizationDenied":
      return "authorization";
    case "ToolInvocationFailed":
      // A refusal of the caller, not a failure of the tool or its server (as the audit trail says).
      return DENIALS.has(event.error_type) ? (REFUSAL_CATEGORIES[event.error_type] ?? "tool_access") : null;
    case "DigestMismatchEvent":
      return "digest_pin";
    case "EgressPolicyEnforced":
      return event.verdict === "allow" ? null : "egress";
    case "ToolApprovalGranted":
    case "ToolApprovalDenied":
    case "ToolApprovalExpired":
    case "ToolApprovalCancelled":
      return "approval";
    case "ApiKeyCreated":
    case "ApiKeyRevoked":
      return "api_key";
    case "RoleAssigned":
    case "RoleRevoked":
      return "role";
    case "SessionSuspended":
    case "SessionResumed":
      return "session";
    case "ToolPolicyChanged":
      return "policy";
    case "DiscoveredServerQuarantined":
    case "DiscoveredServerApproved":
    case "DiscoveredServerRejected":
      return "discovery";
    case "McpServerStopped":
      return event.reason === BLOCK_REASON ? "server_block" : null;
    case "McpServerDied":
      return event.reason === "capability_blocked" ? "server_block" : null;
    default:
      return null;
  }
}
