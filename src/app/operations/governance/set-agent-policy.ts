import { z } from "zod";
import { RequestRejected } from "../../../domain/errors.js";
import { AGENT_ACTIONS } from "../../../domain/policy/agent-policy.js";
import { isValidPattern } from "../../../domain/policy/fnmatch.js";
import { defineOperation } from "../../operation.js";
import { requireGovernance } from "./governance-fields.js";

const SERVER_RULE =
  "must be a server or group id, or * for every one (a non-empty string of at most 256 characters)";
const TOOL_RULE = "must be a tool name or an fnmatch pattern (a non-empty string of at most 256 characters)";
const TIMEOUT_RULE = "must be a positive integer (seconds)";
const VERSION_RULE = "must be an integer of at least 0";
const ENTRY_KEYS = "mcp_server_id, action, tool_name, approval_timeout_seconds";
/** One push replaces the whole agent policy; the bound keeps it small enough to match on every call. */
const MAX_ENTRIES = 10_000;

const entrySchema = z.strictObject(
  {
    mcp_server_id: z
      .string({ error: SERVER_RULE })
      .min(1, { error: SERVER_RULE })
      .max(256, { error: SERVER_RULE }),
    action: z.enum(AGENT_ACTIONS, { error: `must be one of ${AGENT_ACTIONS.join(", ")}` }),
    tool_name: z
      .string({ error: TOOL_RULE })
      .min(1, { error: TOOL_RULE })
      .max(256, { error: TOOL_RULE })
      .refine(isValidPattern, { error: "is not a valid fnmatch pattern" }),
    approval_timeout_seconds: z.int({ error: TIMEOUT_RULE }).min(1, { error: TIMEOUT_RULE }).optional(),
  },
  // An unknown key is named by the one rule of every input (`zodValidation`).
  {
    error: (issue) =>
      issue.code === "invalid_type" ? `must be a mapping with keys ${ENTRY_KEYS}` : undefined,
  },
);

/**
 * `POST /agent/policy` (spec 1): a policy agent pushes the tool policy of the fleet as a whole.
 * `tool_policies` entries name a server or group (`*`: every one), an action and a tool name or
 * pattern; the entries of one target form one policy block (allow -> allow list, deny -> deny list,
 * require-approval -> approval list; audit changes no verdict, every call being audited anyway),
 * combined with every other policy over a call (any deny denies). A push replaces the previous one
 * unless its `version` is older than the one in force (409 `stale_version`, nothing changed). Kept
 * in the shared store, which checks the version: it outlives a restart, and every replica sharing
 * the store enforces it (at once when the push's event reaches it). Answers
 * `{status: 'ok', version, applied}`.
 * With authentication on the route is not in the route table and is refused (spec 2 §5).
 */
export const setAgentPolicy = defineOperation({
  name: "set-agent-policy",
  kind: "command",
  summary: "Replace the tool policy pushed by a policy agent.",
  permissions: ["policy:write"],
  // Unknown keys are refused: a misspelt `tool_polices` would otherwise replace the policy in force
  // with an empty one.
  input: z.strictObject(
    {
      tool_policies: z
        .array(entrySchema, { error: "must be a list of policy entries" })
        .max(MAX_ENTRIES, { error: `must list at most ${MAX_ENTRIES} entries` })
        .default(() => []),
      version: z.int({ error: VERSION_RULE }).min(0, { error: VERSION_RULE }).default(0),
    },
    {
      error: (issue) =>
        issue.code === "invalid_type" ? "must be a mapping with keys tool_policies, version" : undefined,
    },
  ),
  async run(services, input, ctx) {
    const { agent } = requireGovernance(services);
    const outcome = await agent.replace({
      version: input.version,
      tool_policies: input.tool_policies,
      pushed_by: ctx.principal.id,
      pushed_at: services.clock.now() / 1000,
    });
    if (!outcome.applied) {
      throw new RequestRejected(
        409,
        "stale_version",
        `version ${input.version} is older than the agent policy in force (version ${outcome.version}); nothing changed`,
        { version: outcome.version },
      );
    }
    services.logger.info(
      { version: input.version, entries: input.tool_policies.length, by: ctx.principal.id },
      "agent policy replaced",
    );
    // The event tells replicas sharing the event log to read the store; it carries the policy for
    // the event log's readers.
    services.bus.publish([
      {
        type: "ToolPolicyChanged",
        mcp_server_id: "*",
        change: "agent_policy_set",
        agent_policy: { version: input.version, tool_policies: input.tool_policies },
      },
    ]);
    return { status: "ok", version: input.version, applied: input.tool_policies.length };
  },
});
