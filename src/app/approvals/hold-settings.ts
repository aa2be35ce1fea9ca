import { type ToolPolicy, verdictOf } from "../../domain/policy/tool-policy.js";

/** A policy block as the configuration gives it: the domain fields plus the hold's own settings. */
type HoldingPolicy = ToolPolicy & {
  readonly approval_timeout_seconds?: unknown;
  readonly approval_channel?: unknown;
};

export interface HoldSettings {
  readonly timeoutSeconds: number;
  readonly channel: string;
}

/**
 * How long a call is held and where its request goes, from the policies that govern it (spec 2 §2:
 * `approval_timeout_seconds`, `approval_channel`; "each approval routes on its own policy's
 * channel"). Of several policies holding the same call, the shortest timeout wins (the strictest
 * hold), and the channel of the most specific one that names a channel: the server's own policy,
 * then a group member's, then the group's. `policies` come in the order of `memberPolicies`
 * (groups first, the server's own last).
 */
export function holdSettings(
  policies: readonly (ToolPolicy | undefined)[],
  tool: string,
  defaults: HoldSettings,
): HoldSettings {
  let timeoutSeconds: number | undefined;
  let channel: string | undefined;
  for (const policy of [...policies].reverse() as (HoldingPolicy | undefined)[]) {
    if (!policy || verdictOf(policy, tool) !== "approval") continue;
    const timeout = policy.approval_timeout_seconds;
    const own =
      Number.isInteger(timeout) && (timeout as number) > 0 ? (timeout as number) : defaults.timeoutSeconds;
    timeoutSeconds = Math.min(timeoutSeconds ?? own, own);
    const named = policy.approval_channel;
    if (channel === undefined && typeof named === "string" && named.trim() !== "") channel = named;
  }
  return {
    timeoutSeconds: timeoutSeconds ?? defaults.timeoutSeconds,
    channel: channel ?? defaults.channel,
  };
}
