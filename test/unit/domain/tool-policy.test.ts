import { describe, expect, it } from "vitest";
import { combinedVerdict, policySummary, verdictOf } from "../../../src/domain/policy/tool-policy.js";

const policy = (allow: string[], deny: string[], approval: string[] = []) => ({
  allow_list: allow,
  deny_list: deny,
  approval_list: approval,
});

describe("tool access policies", () => {
  it.each([
    ["no policy allows everything", undefined, "anything", "allow"],
    ["an allow list exposes only its matches", policy(["read_*"], []), "read_file", "allow"],
    ["an allow list hides the rest", policy(["read_*"], []), "write_file", "deny"],
    ["with an allow list the deny list is ignored", policy(["read_*"], ["read_*"]), "read_file", "allow"],
    ["a deny list hides its matches", policy([], ["delete_*"]), "delete_all", "deny"],
    ["a deny list leaves the rest", policy([], ["delete_*"]), "read_file", "allow"],
    ["an approval match is held", policy([], [], ["send_*"]), "send_mail", "approval"],
    ["deny wins over approval", policy([], ["send_*"], ["send_*"]), "send_mail", "deny"],
  ] as const)("%s", (_name, p, tool, expected) => {
    expect(verdictOf(p, tool)).toBe(expected);
  });

  it("combines server, group and member policies: any deny denies, then any approval holds", () => {
    expect(combinedVerdict([undefined, policy([], ["x"])], "x")).toBe("deny");
    expect(combinedVerdict([policy([], [], ["x"]), undefined], "x")).toBe("approval");
    expect(combinedVerdict([undefined, undefined], "x")).toBe("allow");
  });

  it("summarises a policy for gateway_details", () => {
    expect(policySummary(undefined)).toEqual({ active: false, unrestricted: true });
    expect(policySummary(policy(["a"], []))).toEqual({
      active: true,
      unrestricted: false,
      has_allow_list: true,
      has_deny_list: false,
    });
  });
});
