/**
 * The standard OpenTelemetry environment variables (the OTel SDK environment specification), read
 * from the environment the loader was given. The gateway builds its OpenTelemetry providers
 * explicitly from these (never registering them globally), so that several gateways in one process
 * keep their own; the configuration file's `observability.tracing` keys win where they are written
 * (`applyOverrides` and `resolveOtlpUrl`).
 */
import type { ConfigIssue } from "./issues.js";

export type Environment = Readonly<Record<string, string | undefined>>;

export const OTLP_PROTOCOLS = ["http/protobuf", "http/json", "grpc"] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];
export type OtlpSignal = "traces" | "metrics" | "logs";

export const SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;
export type SamplerName = (typeof SAMPLERS)[number];

/** One signal's OTLP export as the environment sets it. */
export interface OtlpSignalEnv {
  /** `OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf`. */
  readonly protocol: OtlpProtocol;
  /**
   * `OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT` as written, else `OTEL_EXPORTER_OTLP_ENDPOINT` with
   * `/v1/<signal>` appended (as written for gRPC); undefined when neither is set.
   */
  readonly endpoint: string | undefined;
  /** `OTEL_EXPORTER_OTLP_HEADERS`, overridden key by key by `OTEL_EXPORTER_OTLP_<SIGNAL>_HEADERS`. */
  readonly headers: Readonly<Record<string, string>>;
  /** `OTEL_EXPORTER_OTLP_<SIGNAL>_TIMEOUT`, else `OTEL_EXPORTER_OTLP_TIMEOUT` (milliseconds). */
  readonly timeoutMs: number | undefined;
}

export interface OtelEnv {
  /** `OTEL_SDK_DISABLED=true`. */
  readonly disabled: boolean;
  /** `OTEL_SERVICE_NAME`, else `service.name` of `OTEL_RESOURCE_ATTRIBUTES`. */
  readonly serviceName: string | undefined;
  /** `OTEL_RESOURCE_ATTRIBUTES` (`key=value,...`, values percent-decoded). */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  /** `OTEL_TRACES_SAMPLER` (default `parentbased_always_on`) and `OTEL_TRACES_SAMPLER_ARG`. */
  readonly sampler: SamplerName;
  readonly samplerRatio: number;
  /** `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER` / `OTEL_LOGS_EXPORTER`: `none` turns that export off. */
  readonly exporters: Readonly<Record<OtlpSignal, "otlp" | "console" | "none">>;
  /** `OTEL_METRIC_EXPORT_INTERVAL` (milliseconds; default 60000). */
  readonly metricIntervalMs: number;
  readonly traces: OtlpSignalEnv;
  readonly metrics: OtlpSignalEnv;
  readonly logs: OtlpSignalEnv;
}

function text(env: Environment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** `key=value` pairs separated by commas, values percent-decoded (W3C baggage octets). */
function keyValues(env: Environment, name: string, issues: ConfigIssue[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text(env, name) ?? "").split(",")) {
    if (pair.trim() === "") continue;
    const at = pair.indexOf("=");
    const key = at > 0 ? pair.slice(0, at).trim() : "";
    if (key === "") {
      issues.push({ path: name, message: `'${pair.trim()}' must be key=value`, code: "invalid_env" });
      continue;
    }
    try {
      out[key] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      issues.push({
        path: name,
        message: `the value of '${key}' is not percent-encoded`,
        code: "invalid_env",
      });
    }
  }
  return out;
}

function oneOf<T extends string>(
  env: Environment,
  name: string,
  allowed: readonly T[],
  issues: ConfigIssue[],
): T | undefined {
  const value = text(env, name)?.toLowerCase();
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  issues.push({ path: name, message: `must be one of ${allowed.join(", ")}`, code: "invalid_env" });
  return undefined;
}

function timeout(env: Environment, name: string, issues: ConfigIssue[]): number | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isSafeInteger(parsed) && parsed > 0) return parsed;
  issues.push({ path: name, message: "must be a positive integer (milliseconds)", code: "invalid_env" });
  return undefined;
}

/** `base` with the signal's path appended to its path (OTLP exporter specification). */
function withSignalPath(base: string, signal: OtlpSignal): string {
  return `${base.replace(/\/+$/, "")}/v1/${signal}`;
}

function signalEnv(env: Environment, signal: OtlpSignal, issues: ConfigIssue[]): OtlpSignalEnv {
  const upper = signal.toUpperCase();
  const protocol =
    oneOf(env, `OTEL_EXPORTER_OTLP_${upper}_PROTOCOL`, OTLP_PROTOCOLS, issues) ??
    oneOf(env, "OTEL_EXPORTER_OTLP_PROTOCOL", OTLP_PROTOCOLS, issues) ??
    "http/protobuf";
  const own = text(env, `OTEL_EXPORTER_OTLP_${upper}_ENDPOINT`);
  const base = text(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  const endpoint =
    own ?? (base === undefined ? undefined : protocol === "grpc" ? base : withSignalPath(base, signal));
  for (const [name, value] of [
    [`OTEL_EXPORTER_OTLP_${upper}_ENDPOINT`, own],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", base],
  ] as const) {
    if (value !== undefined && !URL.canParse(value)) {
      issues.push({ path: name, message: "must be an absolute http(s) URL", code: "invalid_env" });
    }
  }
  return {
    protocol,
    endpoint: endpoint !== undefined && URL.canParse(endpoint) ? endpoint : undefined,
    headers: {
      ...keyValues(env, "OTEL_EXPORTER_OTLP_HEADERS", issues),
      ...keyValues(env, `OTEL_EXPORTER_OTLP_${upper}_HEADERS`, issues),
    },
    timeoutMs:
      timeout(env, `OTEL_EXPORTER_OTLP_${upper}_TIMEOUT`, issues) ??
      timeout(env, "OTEL_EXPORTER_OTLP_TIMEOUT", issues),
  };
}

const EXPORTERS = ["otlp", "console", "none"] as const;

/** Reads the OpenTelemetry variables; a value the specification does not allow is refused by name. */
export function readOtelEnv(env: Environment): { otel: OtelEnv; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const resourceAttributes = keyValues(env, "OTEL_RESOURCE_ATTRIBUTES", issues);
  const sampler = oneOf(env, "OTEL_TRACES_SAMPLER", SAMPLERS, issues) ?? "parentbased_always_on";
  let samplerRatio = 1;
  const arg = text(env, "OTEL_TRACES_SAMPLER_ARG");
  if (arg !== undefined && sampler.endsWith("traceidratio")) {
    const ratio = Number(arg);
    if (Number.isFinite(ratio) && ratio >= 0 && ratio <= 1) samplerRatio = ratio;
    else
      issues.push({
        path: "OTEL_TRACES_SAMPLER_ARG",
        message: "must be a number from 0 to 1",
        code: "invalid_env",
      });
  }
  const otel: OtelEnv = {
    // The specification's boolean: only "true" (any case) is true.
    disabled: text(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true",
    serviceName: text(env, "OTEL_SERVICE_NAME") ?? resourceAttributes["service.name"],
    resourceAttributes,
    sampler,
    samplerRatio,
    exporters: {
      traces: oneOf(env, "OTEL_TRACES_EXPORTER", EXPORTERS, issues) ?? "otlp",
      metrics: oneOf(env, "OTEL_METRICS_EXPORTER", EXPORTERS, issues) ?? "otlp",
      logs: oneOf(env, "OTEL_LOGS_EXPORTER", EXPORTERS, issues) ?? "otlp",
    },
    metricIntervalMs: timeout(env, "OTEL_METRIC_EXPORT_INTERVAL", issues) ?? 60_000,
    traces: signalEnv(env, "traces", issues),
    metrics: signalEnv(env, "metrics", issues),
    logs: signalEnv(env, "logs", issues),
  };
  return { otel, issues };
}
