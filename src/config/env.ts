/**
 * Environment variables and command-line overrides. Nothing here reads `process.env`: the loader
 * passes the environment in, so tests can give their own.
 *
 * Precedence (spec 2 §2): environment variables usually win over file keys; the top-level
 * `rate_limit` block wins over `MCP_RATE_LIMIT_*` (the variables are its fallback), and a file's
 * `logging.level` wins over an `MCP_LOG_LEVEL` (or `--log-level`) of INFO. Command-line flags win
 * over the environment.
 */
import type { ConfigIssue } from "./issues.js";
import { type OtelEnv, readOtelEnv } from "./otel-env.js";
import { describeAddressOrCidrProblem } from "./schema/cidr.js";
import { LOG_LEVEL_RULE, type LogLevel, parseLogLevel } from "./schema/operations.js";
import { isPlainObject } from "./schema/primitives.js";
import type { GatewayConfig } from "./schema.js";

export type Environment = Readonly<Record<string, string | undefined>>;

/** Values given on the command line (`--log-level`, `--log-file`, `--json-logs`). */
export interface CliOverrides {
  readonly logLevel?: string | undefined;
  readonly logFile?: string | undefined;
  readonly jsonLogs?: boolean | undefined;
}

/**
 * Where the container engine's API listens (docker mode): a unix socket, or a plain-HTTP TCP
 * address. Structurally the same as the docker adapter's `DockerEndpoint`.
 */
export type ContainerEndpoint =
  | { readonly socketPath: string }
  | { readonly host: string; readonly port: number };

export const DEFAULT_DOCKER_SOCKET = "/var/run/docker.sock";
/** Rootful Podman's API socket; a rootless one lives under `$XDG_RUNTIME_DIR`. */
export const DEFAULT_PODMAN_SOCKET = "/run/podman/podman.sock";
/** The engine's plain-HTTP port when a `tcp://` address names none (Docker's convention). */
const DEFAULT_ENGINE_TCP_PORT = 2375;

export const COMPLIANCE_FORMATS = ["cef", "json-lines", "leef", "syslog"] as const;
export type ComplianceFormat = (typeof COMPLIANCE_FORMATS)[number];

/** Settings that exist only as environment variables, validated. */
export interface EnvSettings {
  /** `MCP_TRUSTED_PROXIES`: peers whose `X-Forwarded-For` is read (addresses or CIDRs). */
  readonly trustedProxies: readonly string[];
  /** `MCP_CONTAINER_RUNTIME`: which engine serves docker-mode servers. */
  readonly containerRuntime: "docker" | "podman";
  /**
   * The engine's API endpoint. docker: `DOCKER_HOST`, else `/var/run/docker.sock`; podman:
   * `CONTAINER_HOST`, else `$XDG_RUNTIME_DIR/podman/podman.sock` (rootless) when XDG_RUNTIME_DIR is
   * set, else `/run/podman/podman.sock`. Only `unix://` and `tcp://` addresses are accepted.
   */
  readonly containerEndpoint: ContainerEndpoint;
  /** `MCP_COMPLIANCE_FORMAT`: SIEM export format, or null when export is off. */
  readonly complianceFormat: ComplianceFormat | null;
  /** `MCP_COMPLIANCE_OUTPUT`: file of the SIEM export; null means stderr. */
  readonly complianceOutput: string | null;
  /** `GATEWAY_CONFIG_STRICT`: unknown configuration keys are refused. */
  readonly strict: boolean;
  /**
   * The part of the gateway's environment every subprocess server inherits (its `env` block goes
   * over it): {@link CHILD_BASE_ENV_VARIABLES}, where set, as the MCP SDK's stdio transport
   * inherits them on POSIX. Nothing else leaks to a child, secrets included.
   */
  readonly childBaseEnv: Readonly<Record<string, string>>;
  /**
   * The whole environment as read: hot-loaded packages take the variables their registry entry
   * declares from it (and the gateway warns about each one it hands over).
   */
  readonly variables: Readonly<Record<string, string | undefined>>;
  /** The standard OpenTelemetry variables (`OTEL_*`), read as the OTel SDK specification says. */
  readonly otel: OtelEnv;
}

/**
 * Variables inherited by subprocess servers: what a program needs to find its home, its user,
 * commands and the terminal type. The MCP SDK's `getDefaultEnvironment()` list for POSIX.
 */
export const CHILD_BASE_ENV_VARIABLES = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"] as const;

export const DEFAULT_TRUSTED_PROXIES = ["127.0.0.1", "::1"] as const;

const TRUE_WORDS = new Set(["1", "true", "yes", "on"]);
const FALSE_WORDS = new Set(["0", "false", "no", "off"]);
const BOOL_RULE = "must be a boolean: 1, true, yes, on, 0, false, no or off";

/** Collects environment problems under the variable's name. */
class EnvReader {
  readonly issues: ConfigIssue[] = [];

  constructor(private readonly env: Environment) {}

  /** The trimmed value, or undefined when unset or empty (an empty variable counts as unset). */
  text(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  }

  /** Whether the variable is set at all, empty included. */
  isSet(name: string): boolean {
    return this.env[name] !== undefined;
  }

  refuse(name: string, message: string): undefined {
    this.issues.push({ path: name, message, code: "invalid_env" });
    return undefined;
  }

  bool(name: string): boolean | undefined {
    const value = this.text(name)?.toLowerCase();
    if (value === undefined) return undefined;
    if (TRUE_WORDS.has(value)) return true;
    if (FALSE_WORDS.has(value)) return false;
    return this.refuse(name, BOOL_RULE);
  }

  int(name: string, min: number, rule: string): number | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    return Number.isSafeInteger(parsed) && parsed >= min ? parsed : this.refuse(name, rule);
  }

  positiveNumber(name: string): number | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    return Number.isFinite(parsed) && parsed > 0
      ? parsed
      : this.refuse(name, "must be a number greater than 0");
  }

  logLevel(name: string): LogLevel | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    return parseLogLevel(value) ?? this.refuse(name, LOG_LEVEL_RULE);
  }
}

/**
 * Unset, the loopback addresses are trusted; set, exactly the entries listed, so an empty value
 * trusts no peer (the exception to "an empty variable counts as unset": it is how a gateway that
 * nothing proxies stops local processes from naming client addresses).
 */
function readTrustedProxies(reader: EnvReader): string[] {
  if (!reader.isSet("MCP_TRUSTED_PROXIES")) return [...DEFAULT_TRUSTED_PROXIES];
  const entries = (reader.text("MCP_TRUSTED_PROXIES") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  for (const entry of entries) {
    const problem = describeAddressOrCidrProblem(entry);
    if (problem !== undefined) reader.refuse("MCP_TRUSTED_PROXIES", `'${entry}' ${problem}`);
  }
  return entries;
}

function readComplianceFormat(reader: EnvReader): ComplianceFormat | null {
  const value = reader.text("MCP_COMPLIANCE_FORMAT")?.toLowerCase();
  if (value === undefined) return null;
  if (value === "jsonlines") return "json-lines";
  if ((COMPLIANCE_FORMATS as readonly string[]).includes(value)) return value as ComplianceFormat;
  reader.refuse("MCP_COMPLIANCE_FORMAT", "must be one of cef, json-lines (or jsonlines), leef, syslog");
  return null;
}

const ENDPOINT_RULE = "must be unix:///path/to/socket or tcp://host:port";

/** Reads `DOCKER_HOST` or `CONTAINER_HOST`: `unix:///path` or `tcp://host[:port]`. */
function readEndpointVariable(reader: EnvReader, name: string): ContainerEndpoint | undefined {
  const value = reader.text(name);
  if (value === undefined) return undefined;
  if (value.startsWith("unix://")) {
    const socketPath = value.slice("unix://".length);
    return socketPath.startsWith("/") ? { socketPath } : reader.refuse(name, ENDPOINT_RULE);
  }
  if (value.startsWith("tcp://")) {
    let url: URL;
    try {
      url = new URL(`http://${value.slice("tcp://".length)}`);
    } catch {
      return reader.refuse(name, ENDPOINT_RULE);
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    if (host === "" || (url.pathname !== "/" && url.pathname !== ""))
      return reader.refuse(name, ENDPOINT_RULE);
    return { host, port: url.port === "" ? DEFAULT_ENGINE_TCP_PORT : Number(url.port) };
  }
  return reader.refuse(name, ENDPOINT_RULE);
}

/**
 * The inherited variables, as they are (not trimmed; an empty one is passed on too). A value
 * starting with `()` is a bash exported function (the Shellshock vector): it is left out.
 */
function readChildBaseEnv(env: Environment): Record<string, string> {
  const base: Record<string, string> = {};
  for (const name of CHILD_BASE_ENV_VARIABLES) {
    const value = env[name];
    if (value !== undefined && !value.startsWith("()")) base[name] = value;
  }
  return base;
}

function readContainerEndpoint(reader: EnvReader, runtime: "docker" | "podman"): ContainerEndpoint {
  if (runtime === "docker") {
    return readEndpointVariable(reader, "DOCKER_HOST") ?? { socketPath: DEFAULT_DOCKER_SOCKET };
  }
  const explicit = readEndpointVariable(reader, "CONTAINER_HOST");
  if (explicit) return explicit;
  const runtimeDir = reader.text("XDG_RUNTIME_DIR");
  if (runtimeDir !== undefined) return { socketPath: `${runtimeDir.replace(/\/+$/, "")}/podman/podman.sock` };
  return { socketPath: DEFAULT_PODMAN_SOCKET };
}

/** Reads and validates the environment-only settings. */
export function readEnvSettings(env: Environment): { settings: EnvSettings; issues: ConfigIssue[] } {
  const reader = new EnvReader(env);
  const runtime = reader.text("MCP_CONTAINER_RUNTIME")?.toLowerCase();
  if (runtime !== undefined && runtime !== "docker" && runtime !== "podman") {
    reader.refuse("MCP_CONTAINER_RUNTIME", "must be docker or podman");
  }
  const containerRuntime = runtime === "podman" ? "podman" : "docker";
  const { otel, issues: otelIssues } = readOtelEnv(env);
  reader.issues.push(...otelIssues);
  const settings: EnvSettings = {
    trustedProxies: readTrustedProxies(reader),
    containerRuntime,
    containerEndpoint: readContainerEndpoint(reader, containerRuntime),
    complianceFormat: readComplianceFormat(reader),
    complianceOutput: reader.text("MCP_COMPLIANCE_OUTPUT") ?? null,
    strict: reader.bool("GATEWAY_CONFIG_STRICT") ?? false,
    childBaseEnv: Object.freeze(readChildBaseEnv(env)),
    variables: env,
    otel,
  };
  return { settings, issues: reader.issues };
}

/** Overrides read from the environment and the command line, validated, not yet applied. */
export interface Overrides {
  readonly cliLogLevel?: LogLevel | undefined;
  readonly envLogLevel?: LogLevel | undefined;
  readonly jsonLogs?: boolean | undefined;
  readonly logFile?: string | undefined;
  readonly maxResponseBytes?: number | undefined;
  readonly maxTokenLifetime?: number | undefined;
  readonly tracingCallerIds?: boolean | undefined;
  /** `OTEL_SDK_DISABLED=true`: tracing off unless the file writes `observability.tracing.enabled`. */
  readonly otelDisabled?: boolean | undefined;
  /** `OTEL_SERVICE_NAME` (or `service.name` of `OTEL_RESOURCE_ATTRIBUTES`), unless the file writes `service_name`. */
  readonly otelServiceName?: string | undefined;
  readonly auditExportEnabled?: boolean | undefined;
  readonly rateLimitRps?: number | undefined;
  readonly rateLimitBurst?: number | undefined;
}

/** Reads the variables and flags that override file keys; invalid ones are refused by name. */
export function readOverrides(
  env: Environment,
  cli: CliOverrides = {},
): { overrides: Overrides; issues: ConfigIssue[] } {
  const reader = new EnvReader(env);
  const issues: ConfigIssue[] = [];
  let cliLogLevel: LogLevel | undefined;
  if (cli.logLevel !== undefined) {
    cliLogLevel = parseLogLevel(cli.logLevel);
    if (cliLogLevel === undefined)
      issues.push({ path: "--log-level", message: LOG_LEVEL_RULE, code: "invalid_option" });
  }
  const overrides: Overrides = {
    cliLogLevel,
    envLogLevel: reader.logLevel("MCP_LOG_LEVEL"),
    jsonLogs: cli.jsonLogs ?? reader.bool("MCP_JSON_LOGS"),
    logFile: cli.logFile?.trim() ? cli.logFile : undefined,
    maxResponseBytes: reader.int("MCP_MAX_RESPONSE_BYTES", 1, "must be a positive integer (bytes)"),
    maxTokenLifetime: reader.int(
      "MCP_JWT_MAX_TOKEN_LIFETIME",
      0,
      "must be an integer >= 0 (seconds; 0 disables the cap)",
    ),
    tracingCallerIds: reader.bool("MCP_TRACING_CALLER_IDS"),
    // Problems of the OTEL_* variables are reported by readEnvSettings, once.
    ...otelOverrides(env),
    auditExportEnabled: reader.bool("MCP_AUDIT_EXPORT_ENABLED"),
    rateLimitRps: reader.positiveNumber("MCP_RATE_LIMIT_RPS"),
    rateLimitBurst: reader.int("MCP_RATE_LIMIT_BURST", 1, "must be a positive integer"),
  };
  return { overrides, issues: [...issues, ...reader.issues] };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends object ? Mutable<T[K]> : T[K] };

function otelOverrides(env: Environment): Pick<Overrides, "otelDisabled" | "otelServiceName"> {
  const { otel } = readOtelEnv(env);
  return { otelDisabled: otel.disabled || undefined, otelServiceName: otel.serviceName };
}

/** Whether the file wrote the key at `path` (`["rate_limit", "rps"]`). */
function written(raw: unknown, ...path: string[]): boolean {
  let node: unknown = raw;
  for (const key of path) {
    if (!isPlainObject(node)) return false;
    node = node[key];
  }
  return node !== undefined;
}

/**
 * Applies validated overrides to a freshly validated configuration (mutated in place, before it is
 * frozen). `raw` tells which keys the file wrote.
 */
export function applyOverrides(config: GatewayConfig, raw: unknown, overrides: Overrides): void {
  const target = config as Mutable<GatewayConfig>;
  // The first of flag and variable that is not INFO wins; otherwise the file's level stays.
  const level = [overrides.cliLogLevel, overrides.envLogLevel].find((l) => l !== undefined && l !== "INFO");
  if (level !== undefined) target.logging.level = level;
  if (overrides.jsonLogs !== undefined) target.logging.json_format = overrides.jsonLogs;
  if (overrides.logFile !== undefined) target.logging.file = overrides.logFile;
  if (overrides.maxResponseBytes !== undefined)
    target.execution.max_response_bytes = overrides.maxResponseBytes;
  if (overrides.maxTokenLifetime !== undefined) {
    // A deployment-wide cap: it wins over every issuer's own value too.
    target.auth.oidc.max_token_lifetime_seconds = overrides.maxTokenLifetime;
    for (const issuer of target.auth.oidc.issuers)
      issuer.max_token_lifetime_seconds = overrides.maxTokenLifetime;
  }
  if (overrides.tracingCallerIds !== undefined)
    target.observability.tracing.caller_ids = overrides.tracingCallerIds;
  // The standard OpenTelemetry variables fill what the file's observability.tracing leaves unwritten.
  if (overrides.otelDisabled && !written(raw, "observability", "tracing", "enabled")) {
    target.observability.tracing.enabled = false;
  }
  if (overrides.otelServiceName !== undefined && !written(raw, "observability", "tracing", "service_name")) {
    target.observability.tracing.service_name = overrides.otelServiceName;
  }
  if (overrides.auditExportEnabled !== undefined)
    target.observability.audit.enabled = overrides.auditExportEnabled;
  // The rate_limit block wins: the variables only fill keys the file did not write.
  if (overrides.rateLimitRps !== undefined && !written(raw, "rate_limit", "rps")) {
    target.rate_limit.rps = overrides.rateLimitRps;
  }
  if (overrides.rateLimitBurst !== undefined && !written(raw, "rate_limit", "burst")) {
    target.rate_limit.burst = overrides.rateLimitBurst;
  }
}
