import type { GatewayConfig } from "../config/schema.js";
import { isLoopbackHost } from "../edges/http/origin-policy.js";
import type { Gateway } from "./create-gateway.js";
import { VERSION } from "./version.js";

/**
 * What the one start-up line says, once the gateway serves: its version, where it listens (the
 * address bound, not the one asked for), the topology, storage, authentication, tracing, the rate
 * limits in force and the console. Carries no secret: endpoints are named, never credentials.
 */
export function startupFacts(
  config: GatewayConfig,
  gateway: Gateway,
  serving: { transport: "http" | "stdio"; address: string | null; configPath: string | null },
): Record<string, unknown> {
  const { tracing } = config.observability;
  const perCaller = config.rate_limit.per_caller;
  return {
    version: VERSION,
    transport: serving.transport,
    ...(serving.address !== null && { address: serving.address }),
    config_path: serving.configPath,
    instance_id: gateway.services.instance.instance_id,
    topology: config.tool_access.mode,
    mcp_servers: gateway.services.fleet.list().length,
    storage: { backend: config.persistence.backend, event_store: config.event_store.driver },
    coordination: config.coordination ? "lease" : "single replica",
    auth: config.auth.enabled
      ? { enabled: true, api_keys: config.auth.api_key.enabled, oidc: config.auth.oidc.enabled }
      : { enabled: false },
    tracing: tracing.enabled
      ? {
          enabled: true,
          otlp_endpoint: gateway.tracing?.endpoint ?? null,
          protocol: gateway.tracing?.protocol ?? null,
        }
      : { enabled: false },
    rate_limit: {
      rps: config.rate_limit.rps,
      burst: config.rate_limit.burst,
      ...(perCaller && { per_caller: perCaller }),
    },
    ...(serving.transport === "http" && { console: config.ui.enabled ? config.ui.path : "off" }),
  };
}

/** Whether authentication is off on a listener other machines can reach. */
export function exposedWithoutAuth(config: GatewayConfig, host: string): boolean {
  return !config.auth.enabled && !isLoopbackHost(host);
}
