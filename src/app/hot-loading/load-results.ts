/** The results of `gateway_load` and `gateway_unload` (spec 2 §4) and the runtime server view. */

import { matchesAny } from "../../domain/policy/fnmatch.js";
import type { ToolPolicy } from "../../domain/policy/tool-policy.js";
import type { ServerState } from "../../domain/server/lifecycle.js";
import type { ToolInfo } from "../fleet/managed-server.js";
import type { RegistryServer } from "../ports/mcp-registry.js";
import type { DeadView } from "../views/server-views.js";
import type { MissingVariable } from "./install-plan.js";
import { verificationOf } from "./verification.js";

export interface MatchView {
  name: string;
  title?: string;
  description: string;
  version: string;
  verified: boolean;
}

/** `gateway_load` results (spec 2 §4), discriminated by `status`. */
export type LoadResult =
  | {
      status: "loaded";
      message: string;
      mcp_server_id: string;
      mcp_server_name: string;
      tools: string[];
      warnings?: string[];
    }
  | { status: "ambiguous"; message: string; mcp_server_name: string; matches: MatchView[] }
  | { status: "not_found"; message: string; mcp_server_name: string }
  | {
      status: "missing_secrets";
      message: string;
      mcp_server_name: string;
      missing: string[];
      instructions: string;
    }
  | { status: "unverified"; message: string; mcp_server_name: string; reason: string }
  | { status: "already_loaded"; message: string; mcp_server_id: string; mcp_server_name: string }
  | { status: "failed"; message: string; mcp_server_name: string };

/** `gateway_unload` results (spec 2 §4). */
export interface UnloadResult {
  status: "unloaded" | "not_hot_loaded" | "failed";
  mcp_server: string;
  message: string;
  lifetime_seconds?: number;
}

/** One entry of `runtime_mcp_servers` in `gateway_list` and `gateway_status`. */
export interface RuntimeServerView {
  mcp_server: string;
  state: ServerState;
  /** `registry:<registry server name>@<version>`. */
  source: string;
  verified: boolean;
  /** Always true: runtime servers are never persisted and are gone after a restart. */
  ephemeral: true;
  /** ISO 8601 UTC. */
  loaded_at: string;
  lifetime_seconds: number;
  dead: DeadView | null;
}

export function matchView(server: RegistryServer): MatchView {
  return {
    name: server.name,
    ...(server.title !== undefined && { title: server.title }),
    description: server.description,
    version: server.version,
    verified: verificationOf(server).verified,
  };
}

export function missingSecrets(name: string, missing: readonly MissingVariable[], via: string): LoadResult {
  const names = missing.map((variable) => variable.name);
  const lines = missing.map(
    (variable) =>
      `${variable.name}${variable.secret ? " (secret)" : ""}${variable.description ? `: ${variable.description}` : ""}`,
  );
  return {
    status: "missing_secrets",
    message: `'${name}' (${via}) needs environment variable(s) the gateway does not have: ${names.join(", ")}`,
    mcp_server_name: name,
    missing: names,
    instructions:
      `Set ${names.join(", ")} in the gateway's environment and restart the gateway, then call gateway_load ` +
      `again. The variables are passed to this server only. ${lines.join("; ")}`,
  };
}

/** Policy patterns that hide nothing or are ignored: probably not what the caller meant. */
export function policyWarnings(policy: ToolPolicy | undefined, tools: readonly ToolInfo[]): string[] {
  if (policy === undefined) return [];
  const warnings: string[] = [];
  const unmatched = (patterns: readonly string[]) =>
    patterns.filter((pattern) => !tools.some((tool) => matchesAny(tool.name, [pattern])));
  for (const pattern of unmatched(policy.allow_list)) {
    warnings.push(`allow_tools pattern '${pattern}' matches no tool of the server`);
  }
  if (policy.allow_list.length > 0 && policy.deny_list.length > 0) {
    warnings.push("deny_tools is ignored: with allow_tools only the tools it matches are exposed");
  } else {
    for (const pattern of unmatched(policy.deny_list)) {
      warnings.push(`deny_tools pattern '${pattern}' matches no tool of the server`);
    }
  }
  return warnings;
}
