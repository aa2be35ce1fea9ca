/**
 * One non-group `mcp_servers.<id>` entry: a subprocess, docker or remote server.
 *
 * Each mode has its own strict object so the output type says exactly which keys a mode has. A key
 * documented for another mode (`volumes` on a subprocess server, `args` outside docker) is not an
 * unknown key: it is reported as `config_key_ignored` and left out of the output.
 */

import * as z from "zod";
import { SERVER_ID_CHARS, SERVER_ID_PATTERN } from "../../domain/server/server-id.js";
import {
  addError,
  addWarning,
  bool,
  intAtLeast,
  intBetween,
  isPlainObject,
  nonBlank,
  optionalSection,
  REQUIRED,
  rule,
  stringList,
  stringMap,
} from "./primitives.js";
import {
  buildSchema,
  capabilitiesSchema,
  concurrencySchema,
  descriptionSchema,
  endpointSchema,
  headerExposureSchema,
  remoteAuthSchema,
  remoteHttpSchema,
  resourcesSchema,
  serverToolProjectionSchema,
  tlsSchema,
} from "./server-blocks.js";
import { accessSchema, forwardIssues, serverToolsSchema, tenantPoliciesSchema } from "./tool-policy.js";

export { SERVER_ID_PATTERN };
export const SERVER_ID_RULE = `is not a valid id: use ${SERVER_ID_CHARS}`;

/** Every value `mode` accepts; `container` is read as `docker`. */
export const SERVER_MODES = ["subprocess", "docker", "container", "remote", "group"] as const;
export type ServerModeName = "subprocess" | "docker" | "remote";

/** Spec 2 §2 defaults of the lifecycle keys. */
export const SERVER_KEY_DEFAULTS = {
  idle_ttl_s: 300,
  health_check_interval_s: 60,
  max_consecutive_failures: 3,
} as const;

const COMMAND_RULE =
  "must be a non-empty list of strings such as [node, server.js] (a bare string is refused)";

const commonShape = {
  // The MCP revision spoken to the server: a session (`initialize`), 2026-07-28 (`stateless`), or
  // whichever its `server/discover` offers (`auto`). Default: `session`, `auto` for remote.
  mcp_revision: z
    .enum(["session", "stateless", "auto"], { error: "must be one of session, stateless, auto" })
    .optional(),
  env: stringMap().default(() => ({})),
  idle_ttl_s: intBetween(1, 86400).default(SERVER_KEY_DEFAULTS.idle_ttl_s),
  health_check_interval_s: intBetween(5, 3600).default(SERVER_KEY_DEFAULTS.health_check_interval_s),
  max_consecutive_failures: intBetween(1, 100).default(SERVER_KEY_DEFAULTS.max_consecutive_failures),
  description: descriptionSchema,
  tools: serverToolsSchema,
  max_concurrency: concurrencySchema,
  max_response_bytes: intAtLeast(1).optional(),
  capabilities: capabilitiesSchema,
  access: accessSchema.optional(),
  tool_access: optionalSection({ member: tenantPoliciesSchema.default(() => ({})) }),
  tool_projection: serverToolProjectionSchema,
  header_exposure: headerExposureSchema,
};

const subprocessShape = {
  mode: z.literal("subprocess"),
  command: z
    .array(nonBlank("must be a non-empty string"), rule(COMMAND_RULE))
    .min(1, { error: COMMAND_RULE }),
  ...commonShape,
};

const dockerShape = {
  mode: z.literal("docker"),
  image: nonBlank("must be a non-empty image reference"),
  volumes: stringList("volume specifications").default(() => []),
  build: buildSchema,
  resources: resourcesSchema,
  network: nonBlank("must be a non-empty network name").optional(),
  // Older spelling of `network`: still read (network wins), and flagged as an unknown key.
  network_mode: nonBlank("must be a non-empty network name").optional(),
  read_only: bool().default(true),
  // `current` maps to the host uid:gid at start; flagged as an unknown key like network_mode.
  user: nonBlank().optional(),
  args: stringList("arguments").optional(),
  ...commonShape,
};

const remoteShape = {
  mode: z.literal("remote"),
  endpoint: endpointSchema,
  auth: remoteAuthSchema,
  tls: tlsSchema,
  http: remoteHttpSchema,
  ...commonShape,
};

/** Docker's own default: no network unless the operator grants one. */
const DEFAULT_DOCKER_NETWORK = "none";

export const subprocessServerSchema = z.strictObject(subprocessShape);
export const dockerServerSchema = z
  .strictObject(dockerShape)
  .transform(({ network_mode, network, ...rest }) => ({
    ...rest,
    network: network ?? network_mode ?? DEFAULT_DOCKER_NETWORK,
  }));
export const remoteServerSchema = z.strictObject(remoteShape);

export type SubprocessServerEntry = z.output<typeof subprocessServerSchema>;
export type DockerServerEntry = z.output<typeof dockerServerSchema>;
export type RemoteServerEntry = z.output<typeof remoteServerSchema>;
/** The output type of one non-group `mcp_servers` entry. */
export type ServerEntry = SubprocessServerEntry | DockerServerEntry | RemoteServerEntry;

const VARIANTS = {
  subprocess: subprocessServerSchema,
  docker: dockerServerSchema,
  remote: remoteServerSchema,
} as const;

const MODE_KEYS: Record<ServerModeName, ReadonlySet<string>> = {
  subprocess: new Set(Object.keys(subprocessShape)),
  docker: new Set(Object.keys(dockerShape)),
  remote: new Set(Object.keys(remoteShape)),
};

/** Every key documented for some server mode. */
export const SERVER_KEYS: ReadonlySet<string> = new Set([
  ...MODE_KEYS.subprocess,
  ...MODE_KEYS.docker,
  ...MODE_KEYS.remote,
]);

/** Keys flagged as unknown by the loader whatever the mode; elsewhere than docker they are dropped. */
export const FLAGGED_SERVER_KEYS: ReadonlySet<string> = new Set(["network_mode", "user"]);

const REQUIRED_KEY: Record<ServerModeName, string> = {
  subprocess: "command",
  docker: "image",
  remote: "endpoint",
};

function modesOf(key: string): string {
  return (Object.keys(MODE_KEYS) as ServerModeName[]).filter((mode) => MODE_KEYS[mode].has(key)).join(" or ");
}

/** Reads `mode`: absent means subprocess, `container` is docker. Undefined when invalid. */
export function normalizeMode(value: unknown): ServerModeName | "group" | undefined {
  if (value === undefined) return "subprocess";
  if (value === "container") return "docker";
  if (value === "subprocess" || value === "docker" || value === "remote" || value === "group") return value;
  return undefined;
}

export const MODE_RULE = `must be one of ${SERVER_MODES.join(", ")}`;

type Ctx = Parameters<typeof addError>[0];

export interface ServerParseOptions {
  /** Keys of the surrounding entry that are not server keys (a group member's id, weight, priority). */
  readonly skipKeys?: ReadonlySet<string>;
  /** Added to the "is required" message of the mode's required key. */
  readonly requiredHint?: string;
}

/**
 * Parses one non-group server at `prefix`, adding issues to `ctx`. Returns undefined when the entry
 * is refused (the issues say why). `mode: group` is refused here: the caller handles groups.
 */
export function parseServerEntry(
  value: unknown,
  ctx: Ctx,
  prefix: readonly PropertyKey[],
  options: ServerParseOptions = {},
): ServerEntry | undefined {
  if (!isPlainObject(value)) {
    addError(ctx, [...prefix], value === null ? "must be a mapping (null is refused)" : "must be a mapping");
    return undefined;
  }
  const mode = normalizeMode(value.mode);
  if (mode === undefined || mode === "group") {
    addError(
      ctx,
      [...prefix, "mode"],
      mode === "group" ? "must not be group here: a group member cannot be a group" : MODE_RULE,
    );
    return undefined;
  }
  const input: Record<string, unknown> = { mode };
  for (const [key, item] of Object.entries(value)) {
    if (key === "mode" || options.skipKeys?.has(key)) continue;
    if (SERVER_KEYS.has(key) && !MODE_KEYS[mode].has(key)) {
      if (!FLAGGED_SERVER_KEYS.has(key)) {
        addWarning(ctx, [...prefix, key], `applies only to mode ${modesOf(key)}; ignored for mode ${mode}`, {
          warning: "config_key_ignored",
          fix: { kind: "delete" },
        });
      }
      continue;
    }
    input[key] = item;
  }
  const parsed = VARIANTS[mode].safeParse(input);
  if (parsed.success) return parsed.data;
  const requiredKey = REQUIRED_KEY[mode];
  const modeName = value.mode === "container" ? "container" : mode;
  forwardIssues(
    ctx,
    parsed.error.issues.map((issue) =>
      issue.path.length === 1 && issue.path[0] === requiredKey && issue.message === REQUIRED
        ? { ...issue, message: `is required for mode ${modeName}${options.requiredHint ?? ""}` }
        : issue,
    ),
    prefix,
  );
  return undefined;
}
