import type { ToolPolicy } from "../domain/policy/tool-policy.js";
import type { CapabilityContract, ServerMode, ServerSpec, ToolSchema } from "../domain/server/server-spec.js";

/** The keys of one `mcp_servers.<id>` entry that the runtime reads (defaults already applied). */
export interface ServerEntryFields {
  mode: string;
  command?: readonly string[] | null;
  image?: string | null;
  endpoint?: string | null;
  args?: readonly string[] | null;
  env?: Readonly<Record<string, string>> | null;
  idle_ttl_s: number;
  health_check_interval_s: number;
  max_consecutive_failures: number;
  description?: string | null;
  tools?: unknown;
  max_concurrency?: number | null;
  max_response_bytes?: number | null;
  [key: string]: unknown;
}

/** Keys the spec builder maps itself; everything else travels in `options` to the mode's factory. */
const MAPPED = new Set([
  "mode",
  "command",
  "image",
  "endpoint",
  "args",
  "env",
  "idle_ttl_s",
  "health_check_interval_s",
  "max_consecutive_failures",
  "description",
  "tools",
  "max_concurrency",
  "max_response_bytes",
  "capabilities",
]);

/** `container` is an alias of `docker` (spec 2 §2). */
function runtimeMode(mode: string): ServerMode {
  if (mode === "container") return "docker";
  return mode as ServerMode;
}

/** A declared server as the runtime needs it. */
export function specFromEntry(id: string, entry: ServerEntryFields, cwd?: string): ServerSpec {
  const options = Object.fromEntries(Object.entries(entry).filter(([k, v]) => !MAPPED.has(k) && v != null));
  return {
    id,
    mode: runtimeMode(entry.mode),
    ...(entry.command && { command: [...entry.command] }),
    ...(entry.image && { image: entry.image }),
    ...(entry.endpoint && { endpoint: entry.endpoint }),
    ...(entry.args && { args: [...entry.args] }),
    env: { ...(entry.env ?? {}) },
    ...(cwd !== undefined && { cwd }),
    idle_ttl_s: entry.idle_ttl_s,
    health_check_interval_s: entry.health_check_interval_s,
    max_consecutive_failures: entry.max_consecutive_failures,
    ...(entry.description && { description: entry.description }),
    ...(Array.isArray(entry.tools) && { predefined_tools: entry.tools as ToolSchema[] }),
    ...(entry.tools != null && !Array.isArray(entry.tools) && { tool_policy: entry.tools as ToolPolicy }),
    ...(entry.max_concurrency != null && { max_concurrency: entry.max_concurrency }),
    ...(entry.max_response_bytes != null && { max_response_bytes: entry.max_response_bytes }),
    ...(entry.capabilities != null && { capabilities: entry.capabilities as CapabilityContract }),
    options,
    source: "config",
  };
}
