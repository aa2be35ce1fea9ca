import type { ShareBudget } from "../domain/truncation/shares.js";
import type { CutStyle } from "../domain/truncation/truncate-result.js";
import type { ApprovalService } from "./approvals/approval-service.js";
import type { AccessEvents } from "./auth/access-events.js";
import type { Authorizer } from "./auth/authorizer.js";
import type { CommitBeforeAnswer } from "./commit-before-answer.js";
import type { RequestContext } from "./context.js";
import type { Leadership } from "./coordination/leadership.js";
import type { ReplicaPresence } from "./coordination/replica-presence.js";
import type { DiscoveryService } from "./discovery/discovery-service.js";
import type { EgressPolicies } from "./egress/egress-policies.js";
import type { EventBus } from "./event-bus.js";
import type { Fleet } from "./fleet/fleet.js";
import type { ToolInvoker } from "./fleet/tool-invoker.js";
import type { Governance } from "./governance/governance.js";
import type { GroupService } from "./groups/group-service.js";
import type { HeaderExposure } from "./headers/header-exposure.js";
import type { HotLoadingService } from "./hot-loading/hot-loading-service.js";
import type { DigestPins } from "./pins/digest-pins.js";
import type { Clock } from "./ports/clock.js";
import type { ComplianceExportStatus } from "./ports/compliance-export.js";
import type { ConfigFiles } from "./ports/config-files.js";
import type { ConfigReloader } from "./ports/config-reloader.js";
import type { ContinuationStore } from "./ports/continuation-store.js";
import type { EndpointGuard } from "./ports/endpoint-guard.js";
import type { EventStore } from "./ports/event-store.js";
import type { GatewayMetrics } from "./ports/gateway-metrics.js";
import type { Hasher } from "./ports/hasher.js";
import type { IdGenerator } from "./ports/id-generator.js";
import type { Logger } from "./ports/logger.js";
import type { RunningConfig } from "./ports/running-config.js";
import type { StoreRepositories } from "./ports/store-repositories.js";
import type { Tracer } from "./ports/tracer.js";
import type { CallGate } from "./routing/call-gate.js";

export interface InstanceInfo {
  instance_id: string;
  version: string;
  /** Epoch milliseconds. */
  started_at: number;
  /** Monotonic milliseconds at start, for uptime. */
  started_mono: number;
  coordinates_with_peers: boolean;
  /** Live: with coordination, true only while this replica holds the management lease. */
  readonly manages_fleet: boolean;
  storage_is_shareable: boolean;
  rate_limits_are_per_instance: boolean;
}

/** Static facts about the configuration the operations need. */
export interface ServiceSettings {
  /** MCP topology: `egress` (gateway_call) or `front_door`. */
  topology: "egress" | "front_door";
  /** Server ids declared in the configuration file (REST may not delete them). */
  declaredServerIds: ReadonlySet<string>;
  authEnabled: boolean;
  /** `auth.allow_anonymous`: requests without credentials pass authentication as `anonymous`. */
  allowAnonymous: boolean;
  /** The command-bus rate limit as configured (spec 2 §8), for reporting. */
  rateLimit: { rps: number; burst: number; perCaller: boolean };
  /**
   * `headers.param_validation.required`: a `tools/call` whose `Mcp-Param-*` headers cannot be
   * verified is refused too, not only one whose headers disagree with its arguments. Default false.
   */
  paramHeadersRequired?: boolean;
  /**
   * `observability.metrics_history` as configured on this replica (the sampler's interval and how
   * long samples are kept), for the history route to report; absent: the sampler is off.
   */
  metricsHistory?: { interval_s: number; retention_s: number };
}

/** `truncation` while enabled: how `gateway_call` results are cut, and where the rest is kept. */
export interface Continuations {
  settings: ShareBudget & CutStyle;
  store: ContinuationStore;
}

/**
 * An operation as the rate limit and the leader see it: its name, its kind and how it runs. Every
 * `Operation` (`operation.ts`) has this shape. It is spelled out here because `operation.ts` imports
 * this file (the services an operation runs with), and an import back would make a cycle.
 */
export interface OperationRef<O = unknown> {
  readonly name: string;
  readonly kind: "command" | "query";
  run(services: AppServices, input: never, ctx: RequestContext): Promise<O>;
}

/** The command-bus rate limit (spec 2 §8), charged by `execute` before an operation runs. */
export interface CommandRateLimit {
  /** Takes one token from the operation's budget; throws `RateLimitExceeded` when it is used up. */
  charge(operation: OperationRef, ctx: RequestContext): void;
  /** Buckets held now (a bucket is dropped once refilled), for `gateway_health`. */
  readonly activeBuckets: number;
}

/** Runs leader-only operations on the fleet manager, wherever they were asked (`coordination/leader-commands.ts`). */
export interface LeaderCommandRunner {
  run<O>(operation: OperationRef<O>, input: unknown, ctx: RequestContext): Promise<O>;
}

/** Everything operations may use. Built once by `composition`. */
export interface AppServices {
  fleet: Fleet;
  invoker: ToolInvoker;
  /** Role-based authorization (consulted only with authentication on). */
  authorizer: Authorizer;
  /** Publishes authentication and authorization outcomes; present with authentication on. */
  accessEvents?: AccessEvents;
  /** Absent: no command-bus rate limit. */
  rateLimiter?: CommandRateLimit;
  /** Checks every upstream tool call passes right before it is sent, in order (`routing/call-gate.ts`). */
  callGates?: readonly CallGate[];
  /** Digest pins of servers and groups (`tool_projection`); absent, nothing is pinned. */
  pins?: DigestPins;
  /** `header_exposure`: tools withheld for their `x-mcp-header` annotations; absent, none is. */
  headerExposure?: HeaderExposure;
  /**
   * Tenant, stored and agent-pushed tool policies, prompt/resource access, runtime withdrawals,
   * suspended sessions and validators (`governance/governance.ts`); absent, none of them applies.
   */
  governance?: Governance;
  /**
   * Human approval holds and signed-callback verification (`approvals.enabled`); absent, calls
   * that need a hold are refused and the approval routes answer 503.
   */
  approvals?: ApprovalService;
  /** L7 egress policies of MCP servers, attached through REST and applied by their call gate. */
  egressPolicies: EgressPolicies;
  groups: GroupService;
  /** Configuration reload; absent when the gateway was not started from a file. */
  reloader?: ConfigReloader;
  /** The file backup and diff act on (`MCP_CONFIG` or `./config.yaml`); absent, they answer 501. */
  configFiles?: ConfigFiles;
  /** The configuration document running now, for export and diff. */
  runningConfig?: RunningConfig;
  /** `gateway_load` / `gateway_unload`; absent with `hot_loading.enabled: false`. */
  hotLoading?: HotLoadingService;
  /**
   * Discovery sources, pending and quarantined servers, and the cycle (`discovery`); its state lives
   * on the fleet manager. Absent: the discovery operations answer NotConfiguredError.
   */
  discovery?: DiscoveryService;
  /** The durable repositories of the backend (memory ones when nothing is durable). */
  repositories: StoreRepositories;
  /** Every published event is recorded here (memory when event persistence is off). */
  eventStore: EventStore;
  /**
   * `event_store.commit: before_answer` on a durable store: commands and relayed tool calls answer
   * once their events are committed. Absent: they answer at once.
   */
  commitBeforeAnswer?: CommitBeforeAnswer;
  /** The SSRF policy for endpoints registered through REST. */
  endpointGuard: EndpointGuard;
  bus: EventBus;
  clock: Clock;
  ids: IdGenerator;
  hasher: Hasher;
  logger: Logger;
  instance: InstanceInfo;
  /**
   * The management lease (`coordination`); absent without coordination, where this replica is the
   * only one and manages its own fleet. Leader-only work listens to it.
   */
  coordination?: Leadership;
  /** This replica among its peers: its heartbeat and the replicas seen (`GET /api/system/replicas`). */
  replicas?: ReplicaPresence;
  /** With coordination: runs leader-only operations on the fleet manager (see `execute`). */
  leaderCommands?: LeaderCommandRunner;
  settings: ServiceSettings;
  /** This replica's metrics registry (`gateway_metrics`, `GET /metrics`); absent, metrics answer NotConfiguredError. */
  metrics?: GatewayMetrics;
  /** Spans of tool calls (`observability.tracing`); absent, nothing is traced. */
  tracer?: Tracer;
  /** The compliance (SIEM) export while `MCP_COMPLIANCE_FORMAT` is set, for `gateway_health`. */
  complianceExport?: { status(): ComplianceExportStatus };
  /** Null while `truncation.enabled` is false: results are never cut and no continuation exists. */
  continuations: Continuations | null;
}
