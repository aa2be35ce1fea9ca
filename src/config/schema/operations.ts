/**
 * Operating the process: logging, observability, HTTP serving, hot loading and SSRF trust.
 */
import * as z from "zod";
import { MAX_RELAYED_JSON_DEPTH } from "../../domain/limits/json-depth.js";
import { describeCidrProblem } from "./cidr.js";
import {
  addError,
  addWarning,
  bool,
  httpUrl,
  intAtLeast,
  intBetween,
  isPlainObject,
  nonBlank,
  numberAbove,
  numberBetween,
  omitKeys,
  rule,
  section,
  stringList,
} from "./primitives.js";

export const LOG_LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_LEVEL_RULE = `must be one of ${LOG_LEVELS.join(", ")}`;

/** Reads a log level case-insensitively (`debug` is DEBUG). */
export function parseLogLevel(value: string): LogLevel | undefined {
  const upper = value.trim().toUpperCase();
  return (LOG_LEVELS as readonly string[]).includes(upper) ? (upper as LogLevel) : undefined;
}

/** A pattern matching each level in any case, with surrounding blanks, as {@link parseLogLevel} reads it. */
const ANY_CASE_LEVEL = `^\\s*(?:${LOG_LEVELS.map((level) =>
  [...level].map((letter) => `[${letter}${letter.toLowerCase()}]`).join(""),
).join("|")})\\s*$`;

export const loggingSchema = section({
  level: z
    .string(rule(LOG_LEVEL_RULE))
    .refine((value) => parseLogLevel(value) !== undefined, { error: LOG_LEVEL_RULE })
    .meta({ anyOf: [{ enum: [...LOG_LEVELS] }, { type: "string", pattern: ANY_CASE_LEVEL }] })
    .transform((value) => parseLogLevel(value) as LogLevel)
    .default("INFO"),
  json_format: bool().default(false),
  file: nonBlank("must be a non-empty path").optional(),
  /** Each stderr line of a child server also to the gateway's log (INFO, labelled, rate-bounded). */
  forward_server_stderr: bool().default(false),
  /** One line per HTTP request after its response (method, route, status, duration, principal). */
  access_log: bool().default(false),
});

/**
 * The removed third-party observability adapter. Its block still loads (flagged as unknown), but a
 * scrub setting in it refuses the boot: the operator relied on scrubbing that no longer happens.
 */
const removedLangfuseSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    if (value === undefined) return;
    const scrubKeys = isPlainObject(value) ? Object.keys(value).filter((key) => key.startsWith("scrub")) : [];
    for (const key of scrubKeys) {
      addError(
        ctx,
        [key],
        "the langfuse adapter was removed, so this scrub setting is no longer applied; remove the block",
        "removed_setting",
      );
    }
    if (scrubKeys.length === 0) {
      addWarning(ctx, [], "the langfuse adapter was removed", {
        warning: "unknown_config_key",
        fix: { kind: "delete" },
      });
    }
  })
  .optional();

export const observabilitySchema = section({
  tracing: section({
    enabled: bool().default(true),
    // No default: unwritten, the OTEL_EXPORTER_OTLP_* variables decide, else the default endpoint of
    // the protocol (http://localhost:4318 over HTTP, http://localhost:4317 over gRPC).
    otlp_endpoint: httpUrl().optional(),
    service_name: nonBlank().default("airlock"),
    jaeger_host: nonBlank().optional(),
    jaeger_port: intBetween(1, 65535).default(6831),
    console_export: bool().default(false),
    caller_ids: bool().default(false),
  }),
  audit: section({
    enabled: bool().default(true),
    // OTLP log export happens only towards an endpoint set here, never a default one.
    otlp_endpoint: httpUrl().optional(),
  }),
  /**
   * The sampler behind `GET /api/observability/metrics/history`: every `interval_s` each replica
   * records its tool calls, errors and latency percentiles of the interval into the metric history
   * of its store, and drops samples older than `retention_h`. 15 s is a common scrape interval (240
   * points per series an hour); 24 h covers the longest window the route answers (1,440 minutes).
   */
  metrics_history: section({
    enabled: bool().default(true),
    interval_s: intBetween(1, 3600).default(15),
    retention_h: intBetween(1, 168).default(24),
  }),
  langfuse: removedLangfuseSchema,
}).transform((value) => omitKeys(value, ["langfuse"]));

/** The MCP registry's public API; the default source of hot-loadable servers. */
export const DEFAULT_REGISTRY_BASE_URL = "https://registry.modelcontextprotocol.io";

export const hotLoadingSchema = section({
  enabled: bool().default(true),
  registry: section({
    base_url: httpUrl().default(DEFAULT_REGISTRY_BASE_URL),
    timeout_s: numberAbove(0, 300).default(10),
    max_retries: intBetween(0, 10).default(3),
  }),
  cache: section({
    ttl_s: intAtLeast(0).default(3600),
    max_entries: intAtLeast(1).default(1000),
  }),
});

const SHUTDOWN_RULE = "must be a positive integer (seconds); omit it to wait without bound";

/**
 * Defaults of the caps on open MCP sessions (spec 2 §8 keeps the SDK's 10,000 in all). Per principal
 * and per tenant in the spirit of the list_changed stream caps (32 and 256), doubled: a session
 * without a stream costs less than a held stream, and an agent pool under one service account
 * opens several.
 */
export const SESSION_CAP_DEFAULTS = {
  max_sessions: 10_000,
  max_per_principal: 64,
  max_per_tenant: 512,
} as const;

/**
 * The deepest nesting of arrays and objects accepted in any JSON a client sends (REST bodies, MCP
 * messages, tool arguments): far beyond what a real tool schema needs, far below what would
 * exhaust the stack of the code that walks a value.
 */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/**
 * Socket timeouts against slow or idle clients. Headers: a client sends them at once; 10 s is
 * generous on any link and cuts a slow-headers attack. Request: the whole body (4 MiB at most) must
 * arrive within 30 s. Keep-alive: fastify's 72 s, longer than the 60 s idle timeout of common load
 * balancers, so the gateway never closes a connection a balancer is about to reuse.
 */
export const HTTP_TIMEOUT_DEFAULTS = {
  headers_timeout_s: 10,
  request_timeout_s: 30,
  keep_alive_timeout_s: 72,
} as const;

export const httpSchema = section({
  graceful_shutdown_timeout_s: intAtLeast(1, SHUTDOWN_RULE).optional(),
  // Browser origins (scheme://host[:port]) allowed on /api/ws/events besides loopback ones.
  allowed_origins: stringList("origins").default(() => []),
  mcp_sessions: section({
    max_sessions: intBetween(1, 1_000_000).default(SESSION_CAP_DEFAULTS.max_sessions),
    max_per_principal: intBetween(1, 1_000_000).default(SESSION_CAP_DEFAULTS.max_per_principal),
    max_per_tenant: intBetween(1, 1_000_000).default(SESSION_CAP_DEFAULTS.max_per_tenant),
  }),
  // Never deeper than what the gateway relays from MCP servers, the depth its own walkers handle.
  max_json_depth: intBetween(8, MAX_RELAYED_JSON_DEPTH).default(DEFAULT_MAX_JSON_DEPTH),
  headers_timeout_s: numberBetween(1, 600).default(HTTP_TIMEOUT_DEFAULTS.headers_timeout_s),
  request_timeout_s: numberBetween(1, 3600).default(HTTP_TIMEOUT_DEFAULTS.request_timeout_s),
  keep_alive_timeout_s: numberBetween(1, 3600).default(HTTP_TIMEOUT_DEFAULTS.keep_alive_timeout_s),
});

const CIDR_RULE = "must be a CIDR such as 10.0.0.0/8 or fd00::/8";

export const ssrfSchema = section({
  trusted_networks: z
    .array(
      z.string(rule(CIDR_RULE)).superRefine((network, ctx) => {
        const problem = describeCidrProblem(network, { refuseSpecialRanges: true });
        if (problem !== undefined) addError(ctx, [], problem);
      }),
      rule("must be a list of CIDRs (a bare string is refused)"),
    )
    .default(() => []),
});
