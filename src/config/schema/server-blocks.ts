/**
 * Sub-blocks of an `mcp_servers.<id>` entry. The specification leaves the inner fields of
 * `build`, `http`, `auth` and `capabilities` open; the shapes decided here are documented in
 * `docs/configuration.md`.
 */
import * as z from "zod";
import {
  httpUrl,
  intAtLeast,
  mapOf,
  nonBlank,
  numberAbove,
  oneOf,
  optionalSection,
  rule,
  section,
  str,
  stringList,
  stringMap,
  withDeprecatedAlias,
} from "./primitives.js";

/** `docker` only: build the image from a local context before running it (tagged `image`). */
export const buildSchema = optionalSection({
  context: nonBlank("must be a non-empty path (the build context)"),
  dockerfile: nonBlank().default("Dockerfile"),
  args: stringMap().default(() => ({})),
});

/** Docker's memory syntax: a number with an optional b, k, m or g unit. */
const MEMORY_PATTERN = /^\d+(\.\d+)?[bkmg]?$/i;
const CPU_RULE = 'must be a number of CPUs greater than 0 (such as 0.5 or "1.5")';

/** `docker` only: container limits; spec default memory 512m, cpu 1.0. */
export const resourcesSchema = section({
  memory: z
    .string(rule("must be a memory size such as 512m or 1g"))
    .regex(MEMORY_PATTERN, { error: "must be a memory size such as 512m or 1g" })
    .default("512m"),
  // Compose files often quote CPU counts ("1.5"); both spellings are read as a number.
  cpu: z
    .union([z.number(), z.string()], rule(CPU_RULE))
    .transform((value) => (typeof value === "number" ? value : Number(value.trim())))
    .pipe(z.number().gt(0, { error: CPU_RULE }))
    .default(1),
});

const DEFAULT_API_KEY_HEADER = "X-API-Key";

/** `remote` only: credentials sent to the upstream. */
export const remoteAuthSchema = z.preprocess(
  (value) => (value === null ? undefined : value),
  z
    .discriminatedUnion(
      "type",
      [
        z.strictObject({ type: z.literal("bearer"), token: nonBlank("must be a non-empty token") }),
        z.strictObject({
          type: z.literal("api_key"),
          token: nonBlank("must be a non-empty token"),
          header_name: nonBlank("must be a non-empty header name").default(DEFAULT_API_KEY_HEADER),
        }),
      ],
      {
        error: (issue) => {
          if ((issue as { code: string }).code === "invalid_type")
            return "must be a mapping with type, token (and header_name for api_key)";
          const type = (issue.input as { type?: unknown } | undefined)?.type;
          return type === undefined ? "is required (bearer or api_key)" : "must be one of bearer, api_key";
        },
      },
    )
    .optional(),
);

/** `remote` only: spec default `verify_ssl: true`. */
export const tlsSchema = section({
  verify_ssl: z.boolean(rule("must be true or false")).default(true),
  ca_cert_path: nonBlank("must be a non-empty path").optional(),
});

/**
 * `remote` only: transport settings. `auto` tries streamable HTTP first and falls back to SSE, the
 * order the MCP specification recommends for clients of servers of unknown age.
 */
export const remoteHttpSchema = section({
  transport: oneOf(["auto", "streamable_http", "sse"]).default("auto"),
  connect_timeout_s: numberAbove(0, 300).default(10),
  // Bounded by the longest call timeout (300 s) so a silent upstream cannot hold a call forever.
  read_timeout_s: numberAbove(0, 3600).default(300),
  headers: stringMap().default(() => ({})),
});

/**
 * Declared contract of what a server may do; enforced at runtime. An absent sub-block declares
 * nothing about that kind (unrestricted); a present one restricts it to what it lists.
 */
export const capabilitiesSchema = optionalSection({
  network: optionalSection({ egress: stringList("host or host:port patterns").default(() => []) }),
  filesystem: optionalSection({
    read: stringList("paths").default(() => []),
    write: stringList("paths").default(() => []),
  }),
  environment: optionalSection({ variables: stringList("variable names").default(() => []) }),
  tools: stringList("tool name patterns").optional(),
  resources: stringList("resource URI patterns").optional(),
  enforcement_mode: oneOf(["audit", "warn", "block"]).default("block"),
});

const DIGEST_PATTERN = /^[0-9a-f]{64}$/;
const DIGEST_RULE = "must be a 64-character lowercase hexadecimal SHA-256 digest";

const pinsSchema = mapOf(
  z.string(rule(DIGEST_RULE)).regex(DIGEST_PATTERN, { error: DIGEST_RULE }),
  "must be a mapping of tool names to digests",
)
  .superRefine((pins, ctx) => {
    for (const name of Object.keys(pins)) {
      if (name.trim().length === 0)
        ctx.addIssue({ code: "custom", message: "tool name must not be empty", path: [name] });
    }
  })
  .default(() => ({}));

const UNKNOWN_TOOL_POLICIES = ["block", "warn", "allow_unverified"] as const;

/** Per-server digest pinning (`tool_projection`). */
export const serverToolProjectionSchema = optionalSection({
  digest_enforcement: oneOf(["audit", "warn", "block"]).default("block"),
  // What happens to a tool of a pinned server that has no pin (DigestUnknownPolicy).
  unknown_tool_policy: withDeprecatedAlias(
    oneOf(UNKNOWN_TOOL_POLICIES),
    "allow_degraded",
    "allow_unverified",
    "in 1.3.0",
  ).default("warn"),
  pins: pinsSchema,
  tenant_overrides: mapOf(
    z.strictObject({ pins: pinsSchema }, rule("must be a mapping with key pins")),
    "must be a mapping of tenant ids to {pins}",
  ).default(() => ({})),
});

/** `header_exposure`: control of tools whose parameters are exposed as `Mcp-Param-*` headers. */
export const headerExposureSchema = optionalSection({
  deny_annotated: stringList("header globs").default(() => []),
  on_violation: oneOf(["warn", "withdraw", "refuse_boot"]).default("warn"),
});

/** Optional free text. */
export const descriptionSchema = str().optional();

/** Non-negative integer budget; 0 means no limit. */
export const concurrencySchema = intAtLeast(0).optional();

/** Upstream address of a remote server. */
export const endpointSchema = httpUrl();
