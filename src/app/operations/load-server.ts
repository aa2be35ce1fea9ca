import { z } from "zod";
import { defineOperation } from "../operation.js";
import { notConfigured } from "./unavailable.js";

const policyList = z.array(z.string()).nullish();

/**
 * `gateway_load` (spec 2 §4): looks a server up in the MCP registry by name and installs it as a
 * runtime server of this replica. Every outcome but an invalid policy is a `status` of the result;
 * an invalid policy (or `approval_tools` when no approval gate exists) is refused as invalid
 * input before the registry is asked. Answers `NotConfiguredError` with `hot_loading.enabled: false`.
 */
export const loadServer = defineOperation({
  name: "load-server",
  kind: "command",
  summary: "Install an MCP server from the registry by name as a runtime (ephemeral) server.",
  permissions: ["mcp_servers:write"],
  input: z.strictObject({
    name: z.string().trim().min(1).describe("Server name in the MCP registry: full or the part after '/'"),
    force_unverified: z.boolean().default(false).describe("Load a server the registry does not verify"),
    allow_tools: policyList.describe("Only these tools (fnmatch globs)"),
    deny_tools: policyList.describe("Hide these tools (fnmatch globs)"),
    approval_tools: policyList.describe(
      "Hold calls of these tools for a human approval (needs approvals.enabled)",
    ),
  }),
  async run({ hotLoading }, input) {
    if (hotLoading === undefined) throw notConfigured("hot loading");
    return hotLoading.load(input);
  },
});
