import { describe, expect, it } from "vitest";
import {
  SECURITY_EVENT_TYPES,
  securityCategory,
} from "../../../src/app/operations/observability/security-event-kinds.js";
import type { DomainEvent, DomainEventPayload } from "../../../src/domain/events.js";

const envelope = { event_id: "e1", occurred_at: 1, produced_by: "r1" };
const event = (payload: DomainEventPayload) => ({ ...payload, ...envelope }) as DomainEvent;

const failed = (error_type: string) =>
  event({
    type: "ToolInvocationFailed",
    mcp_server_id: "math",
    tool_name: "add",
    call_id: "c1",
    duration_ms: 1,
    error_type,
    error_message: "x",
  });

describe("which events are security decisions", () => {
  it("lists a refused tool call under its refusal, and leaves out failures of the tool or its server", () => {
    expect(securityCategory(failed("ToolAccessDeniedError"))).toBe("tool_access");
    expect(securityCategory(failed("ToolDigestMismatchError"))).toBe("digest_pin");
    expect(securityCategory(failed("EgressPolicyDeniedError"))).toBe("egress");
    expect(securityCategory(failed("RateLimitExceeded"))).toBe("rate_limit");
    expect(securityCategory(failed("TenantQuotaExceeded"))).toBe("rate_limit");
    expect(securityCategory(failed("AccessDeniedError"))).toBe("authorization");
    expect(securityCategory(failed("ToolTimeoutError"))).toBeNull();
    expect(securityCategory(failed("CannotStartMcpServerError"))).toBeNull();
  });

  it("keeps an egress verdict that refused or held the call, and a stop that was a block", () => {
    const verdict = (v: "allow" | "deny" | "requireApproval") =>
      event({
        type: "EgressPolicyEnforced",
        mcp_server_id: "math",
        tool_name: "add",
        call_id: "c1",
        requested_by: "p",
        tenant_id: null,
        policy_id: "sha256:x",
        mode: "Enforce",
        verdict: v,
        enforced: true,
        decided_by: "tools.deny:add",
        reasons: [],
        secret_groups: [],
        payload_bytes: 2,
      });
    expect([verdict("allow"), verdict("deny"), verdict("requireApproval")].map(securityCategory)).toEqual([
      null,
      "egress",
      "egress",
    ]);
    const stop = (reason: string) => event({ type: "McpServerStopped", mcp_server_id: "math", reason });
    expect(securityCategory(stop("detection_enforcement:block"))).toBe("server_block");
    expect(securityCategory(stop("idle"))).toBeNull();
  });

  it("gives every listed type a category for some payload, and none to the rest", () => {
    expect(
      securityCategory(event({ type: "HealthCheckPassed", mcp_server_id: "m", duration_ms: 1 })),
    ).toBeNull();
    expect(
      securityCategory(
        event({
          type: "AuthorizationGranted",
          principal_id: "p",
          permissions: [],
          tenant_id: null,
          resource: "r",
        }),
      ),
    ).toBeNull();
    expect(SECURITY_EVENT_TYPES).toContain("ApiKeyCreated");
    expect(new Set(SECURITY_EVENT_TYPES).size).toBe(SECURITY_EVENT_TYPES.length);
  });
});
