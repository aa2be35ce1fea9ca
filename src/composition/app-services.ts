import type { ApprovalService } from "../app/approvals/approval-service.js";
import { CommitBeforeAnswer } from "../app/commit-before-answer.js";
import type { DiscoveryService } from "../app/discovery/discovery-service.js";
import type { EventBus } from "../app/event-bus.js";
import { CommandRateLimiter } from "../app/limits/command-rate-limiter.js";
import type { ComplianceRecorder } from "../app/observability/compliance-recorder.js";
import type { Clock } from "../app/ports/clock.js";
import type { GatewayMetrics } from "../app/ports/gateway-metrics.js";
import type { Hasher } from "../app/ports/hasher.js";
import type { IdGenerator } from "../app/ports/id-generator.js";
import type { Logger } from "../app/ports/logger.js";
import type { StoreRepositories } from "../app/ports/store-repositories.js";
import type { Tracer } from "../app/ports/tracer.js";
import type { AppServices, Continuations } from "../app/services.js";
import type { GatewayConfig } from "../config/schema.js";
import type { Coordination } from "./coordination.js";
import { createHotLoading } from "./hot-loading.js";
import type { OpenedFleet } from "./open-fleet.js";
import type { OpenedPolicies } from "./open-policies.js";
import type { Storage } from "./open-storage.js";
import { VERSION } from "./version.js";

/** The parts the services are made of, each built by its own builder. */
export interface ServiceParts {
  storage: Storage;
  /** The storage's repositories with the API-key lookups cached. */
  repositories: StoreRepositories;
  continuations: Continuations | null;
  fleet: OpenedFleet;
  policies: OpenedPolicies;
  approvals: ApprovalService | undefined;
  discovery: DiscoveryService;
  coordination: Coordination;
  metrics: GatewayMetrics;
  tracer: Tracer;
  compliance: ComplianceRecorder | null;
  /** Ids the configuration declares (REST may not delete them). */
  declared: ReadonlySet<string>;
  instanceId: string;
  /** The environment hot-loaded packages take their declared variables from. */
  environment: Readonly<Record<string, string | undefined>>;
  bus: EventBus;
  clock: Clock;
  ids: IdGenerator;
  hasher: Hasher;
  logger: Logger;
}

/**
 * The application services of one gateway: what operations run with. Builds only what is made of
 * the configuration alone (the command rate limit, hot loading, the commit wait); the reload parts
 * (`reloader`, `runningConfig`, `configFiles`) are set by `wireReload` when the gateway runs from a file.
 */
export function assembleServices(config: GatewayConfig, parts: ServiceParts): AppServices {
  const { storage, fleet, policies, coordination, clock } = parts;
  return {
    ...(parts.approvals && { approvals: parts.approvals }),
    ...(coordination.elector && { coordination: coordination.elector }),
    ...(coordination.leaderCommands && { leaderCommands: coordination.leaderCommands }),
    replicas: coordination.replicas,
    fleet: fleet.fleet,
    invoker: fleet.invoker,
    authorizer: policies.authorizer,
    ...(policies.accessEvents && { accessEvents: policies.accessEvents }),
    governance: policies.governance,
    callGates: policies.callGates,
    egressPolicies: policies.egressPolicies,
    rateLimiter: new CommandRateLimiter({
      clock,
      settings: {
        allCallers: { rps: config.rate_limit.rps, burst: config.rate_limit.burst },
        perCaller: config.rate_limit.per_caller,
      },
    }),
    groups: fleet.groups,
    pins: policies.pinning.pins,
    headerExposure: policies.headerExposure,
    hotLoading: createHotLoading({
      config,
      fleet: fleet.fleet,
      groups: fleet.groups,
      endpointGuard: fleet.endpointGuard,
      clock,
      logger: parts.logger,
      environment: parts.environment,
    }),
    discovery: parts.discovery,
    endpointGuard: fleet.endpointGuard,
    eventStore: storage.eventStore,
    // The memory store loses its events with the process anyway: nothing to wait for.
    ...(config.event_store.commit === "before_answer" &&
      storage.eventStore.durable && { commitBeforeAnswer: new CommitBeforeAnswer(storage.eventStore) }),
    repositories: parts.repositories,
    continuations: parts.continuations,
    bus: parts.bus,
    clock,
    ids: parts.ids,
    hasher: parts.hasher,
    logger: parts.logger,
    instance: coordination.instance({
      instance_id: parts.instanceId,
      version: VERSION,
      started_at: clock.now(),
      started_mono: clock.monotonic(),
    }),
    metrics: parts.metrics,
    tracer: parts.tracer,
    ...(parts.compliance && { complianceExport: parts.compliance }),
    settings: {
      topology: config.tool_access.mode,
      declaredServerIds: parts.declared,
      authEnabled: config.auth.enabled,
      allowAnonymous: config.auth.allow_anonymous,
      rateLimit: {
        rps: config.rate_limit.rps,
        burst: config.rate_limit.burst,
        perCaller: config.rate_limit.per_caller !== undefined,
      },
      paramHeadersRequired: config.headers.param_validation.required,
      ...(config.observability.metrics_history.enabled && {
        metricsHistory: {
          interval_s: config.observability.metrics_history.interval_s,
          retention_s: config.observability.metrics_history.retention_h * 3600,
        },
      }),
    },
  };
}
