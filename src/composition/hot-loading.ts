import { CachingMcpRegistry } from "../adapters/registry/caching-mcp-registry.js";
import type { Fleet } from "../app/fleet/fleet.js";
import type { GroupService } from "../app/groups/group-service.js";
import { HotLoadingService } from "../app/hot-loading/hot-loading-service.js";
import type { PolicyBlock, PolicyParseResult } from "../app/hot-loading/policy-request.js";
import type { Clock } from "../app/ports/clock.js";
import type { EndpointGuard } from "../app/ports/endpoint-guard.js";
import type { Logger } from "../app/ports/logger.js";
import { toolPolicySchema } from "../config/schema/tool-policy.js";
import type { GatewayConfig } from "../config/schema.js";
import { lazyMcpRegistry } from "./lazy-adapters.js";
import { VERSION } from "./version.js";

export interface HotLoadingWiring {
  config: GatewayConfig;
  fleet: Fleet;
  groups: GroupService;
  endpointGuard: EndpointGuard;
  clock: Clock;
  logger: Logger;
  /** The gateway's environment: required variables of hot-loaded packages are read there. */
  environment: Readonly<Record<string, string | undefined>>;
}

/**
 * The hot-loading service from `hot_loading` (spec 2 §2): the registry client with its timeout,
 * retries and cache, the configuration's own tool policy parser and the SSRF guard. Undefined
 * when `hot_loading.enabled` is false, so `gateway_load` keeps answering "not configured".
 */
export function createHotLoading(wiring: HotLoadingWiring): HotLoadingService | undefined {
  const settings = wiring.config.hot_loading;
  if (!settings.enabled) return undefined;
  // undici loads with the first search (see lazy-adapters.ts).
  const http = lazyMcpRegistry(async () => {
    const { HttpMcpRegistry } = await import("../adapters/registry/http-mcp-registry.js");
    return new HttpMcpRegistry({
      baseUrl: settings.registry.base_url,
      timeoutMs: Math.ceil(settings.registry.timeout_s * 1000),
      maxRetries: settings.registry.max_retries,
      userAgent: `airlock/${VERSION}`,
    });
  });
  const registry = new CachingMcpRegistry(http, {
    ttlMs: settings.cache.ttl_s * 1000,
    maxEntries: settings.cache.max_entries,
    now: () => wiring.clock.now(),
  });
  const environment = wiring.environment;
  return new HotLoadingService({
    registry,
    fleet: wiring.fleet,
    groups: wiring.groups,
    endpointGuard: wiring.endpointGuard,
    clock: wiring.clock,
    logger: wiring.logger,
    readEnv: (name) => (Object.hasOwn(environment, name) ? environment[name] : undefined),
    parsePolicy: parseToolPolicy,
    approvalsAvailable: wiring.config.approvals.enabled,
  });
}

/** A `gateway_load` policy through the one parser of `tools:` blocks of the configuration. */
export function parseToolPolicy(block: PolicyBlock): PolicyParseResult {
  const parsed = toolPolicySchema.safeParse(block);
  if (parsed.success) return { ok: true, policy: parsed.data };
  return {
    ok: false,
    issues: parsed.error.issues.map((issue) => ({ path: issue.path, message: issue.message })),
  };
}
