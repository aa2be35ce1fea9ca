import { z } from "zod";
import type { ServerSpec } from "../../domain/server/server-spec.js";
import { defineOperation } from "../operation.js";

/** Option keys of a mode that carry credentials or request headers: never shown. */
const SENSITIVE_OPTIONS = new Set(["auth", "tls", "http"]);

/**
 * A stored record as GET /config shows it: environment values and credential-bearing options are
 * stripped (the names of the environment variables are kept, their values never leave).
 */
function stripped(spec: ServerSpec): Record<string, unknown> {
  const { env, options, endpoint, ...rest } = spec;
  const visibleOptions = Object.fromEntries(
    Object.entries(options ?? {}).filter(([key]) => !SENSITIVE_OPTIONS.has(key)),
  );
  return {
    mcp_server_id: spec.id,
    ...rest,
    ...(endpoint !== undefined && { endpoint: withoutQueryValues(endpoint) }),
    env_keys: Object.keys(env ?? {}).sort(),
    ...(Object.keys(visibleOptions).length > 0 && { options: visibleOptions }),
  };
}

export const durableConfig = defineOperation({
  name: "durable-config",
  kind: "query",
  summary:
    "Servers kept in the durable configuration repository (registered through REST), secrets stripped.",
  permissions: ["config:read"],
  input: z.strictObject({}),
  async run({ repositories }) {
    if (!repositories.durable) return { config: {} };
    const records = await repositories.serverConfigs.list();
    return { config: { mcp_servers: records.map((record) => stripped(record.spec)) } };
  },
});

/** An endpoint with credentials in its query (`?api_key=...`) or user info is shown without them. */
function withoutQueryValues(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    url.username = "";
    url.password = "";
    for (const key of [...url.searchParams.keys()]) url.searchParams.set(key, "[redacted]");
    return url.toString();
  } catch {
    return "[redacted]";
  }
}
