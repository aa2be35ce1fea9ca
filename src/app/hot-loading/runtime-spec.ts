import type { ToolPolicy } from "../../domain/policy/tool-policy.js";
import { SERVER_DEFAULTS, type ServerSpec } from "../../domain/server/server-spec.js";
import type { RegistryServer } from "../ports/mcp-registry.js";
import type { InstallPlan } from "./install-plan.js";
import { shortName } from "./name-match.js";

/** Longest server id, as for REST registrations. */
const MAX_ID_LENGTH = 128;

/**
 * The fleet spec of a runtime server: `source: 'runtime'` (never persisted; a remote is guarded by
 * the SSRF policy at every connection), the server defaults of a REST registration, and the policy.
 */
export function specFor(
  id: string,
  entry: RegistryServer,
  plan: InstallPlan,
  policy: ToolPolicy | undefined,
): ServerSpec {
  const common = {
    id,
    idle_ttl_s: SERVER_DEFAULTS.idle_ttl_s,
    health_check_interval_s: SERVER_DEFAULTS.health_check_interval_s,
    max_consecutive_failures: SERVER_DEFAULTS.max_consecutive_failures,
    ...(entry.description !== "" && { description: entry.description }),
    ...(policy !== undefined && { tool_policy: policy }),
    source: "runtime" as const,
  };
  if (plan.kind === "npm") return { ...common, mode: "subprocess", command: plan.command, env: plan.env };
  const headers = Object.keys(plan.headers).length > 0 ? { headers: plan.headers } : {};
  return {
    ...common,
    mode: "remote",
    endpoint: plan.endpoint,
    env: {},
    options: { http: { transport: plan.transport, ...headers } },
  };
}

/** The short name as an id, then the full name with its slash turned into a dot. */
export function idCandidates(registryName: string): string[] {
  const clean = (text: string) =>
    text
      .replace(/[^A-Za-z0-9_.-]/g, "-")
      .replace(/^[.-]+/, "")
      .slice(0, MAX_ID_LENGTH);
  const candidates = [clean(shortName(registryName)), clean(registryName.replace("/", "."))];
  return [...new Set(candidates.filter((id) => id !== ""))];
}
