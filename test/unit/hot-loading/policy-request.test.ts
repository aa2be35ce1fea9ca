import { describe, expect, it } from "vitest";
import { APPROVAL_REFUSED, validatePolicyRequest } from "../../../src/app/hot-loading/policy-request.js";
import { parseToolPolicy } from "../../../src/composition/hot-loading.js";
import { GatewayError } from "../../../src/domain/errors.js";

function refusal(request: Parameters<typeof validatePolicyRequest>[0]) {
  try {
    validatePolicyRequest(request, parseToolPolicy, false);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error("the request was accepted");
}

describe("the tool policy of a gateway_load request (the configuration's parser)", () => {
  it("gives no policy when no list is given", () => {
    expect(validatePolicyRequest({}, parseToolPolicy, false)).toBeUndefined();
    expect(
      validatePolicyRequest({ allow_tools: null, deny_tools: null }, parseToolPolicy, false),
    ).toBeUndefined();
  });

  it("turns allow_tools and deny_tools into a policy without approvals", () => {
    expect(
      validatePolicyRequest({ allow_tools: ["get_*"], deny_tools: ["drop"] }, parseToolPolicy, false),
    ).toEqual({
      allow_list: ["get_*"],
      deny_list: ["drop"],
      approval_list: [],
    });
  });

  it("refuses an empty or blank pattern, naming the request's field and position", () => {
    const error = refusal({ allow_tools: ["ok"], deny_tools: ["fine", "  "] });
    expect(error.type).toBe("ValidationError");
    expect(error.message).toBe("Invalid field 'deny_tools.1': must be a non-empty string");
    expect(error.details).toEqual({
      issues: [{ field: "deny_tools.1", rule: "must be a non-empty string" }],
    });
  });

  it("refuses approval_tools while no approval gate exists, accepting an empty list", () => {
    const error = refusal({ approval_tools: ["delete_*"] });
    expect(error.details).toEqual({ issues: [{ field: "approval_tools", rule: APPROVAL_REFUSED }] });
    expect(validatePolicyRequest({ approval_tools: [] }, parseToolPolicy, false)).toBeUndefined();
  });

  it("turns approval_tools into the approval list when an approval gate decides held calls", () => {
    expect(validatePolicyRequest({ approval_tools: ["delete_*"] }, parseToolPolicy, true)).toEqual({
      allow_list: [],
      deny_list: [],
      approval_list: ["delete_*"],
    });
  });

  it("reports every refused field at once", () => {
    const error = refusal({ allow_tools: [""], approval_tools: ["x"] });
    expect((error.details as { issues: { field: string }[] }).issues.map((i) => i.field)).toEqual([
      "approval_tools",
      "allow_tools.0",
    ]);
  });
});
