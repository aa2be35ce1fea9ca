import { describe, expect, it } from "vitest";
import { holdSettings } from "../../../src/app/approvals/hold-settings.js";
import type { ToolPolicy } from "../../../src/domain/policy/tool-policy.js";

const policy = (approval: string[], extra: Record<string, unknown> = {}): ToolPolicy =>
  ({ allow_list: [], deny_list: [], approval_list: approval, ...extra }) as ToolPolicy;

const defaults = { timeoutSeconds: 300, channel: "event_stream" };

describe("how long a call is held and where its request goes", () => {
  it("uses the defaults when the holding policy names neither", () => {
    expect(holdSettings([policy(["send_*"])], "send_mail", defaults)).toEqual(defaults);
  });

  it("takes the shortest timeout of the policies that hold the call", () => {
    const group = policy(["send_*"], { approval_timeout_seconds: 30 });
    const own = policy(["send_*"], { approval_timeout_seconds: 90 });
    expect(holdSettings([group, own], "send_mail", defaults).timeoutSeconds).toBe(30);
  });

  it("routes on the channel of the most specific holding policy that names one", () => {
    const group = policy(["send_*"], { approval_channel: "slack" });
    const own = policy(["send_*"], { approval_channel: "webhook" });
    expect(holdSettings([group, own], "send_mail", defaults).channel).toBe("webhook");
    expect(holdSettings([group, policy(["send_*"])], "send_mail", defaults).channel).toBe("slack");
  });

  it("ignores policies that do not hold this tool", () => {
    const other = policy(["delete_*"], { approval_timeout_seconds: 5, approval_channel: "slack" });
    expect(holdSettings([other, policy(["send_*"]), undefined], "send_mail", defaults)).toEqual(defaults);
  });
});
