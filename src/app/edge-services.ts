import type { Authorizer } from "./auth/authorizer.js";
import type { Fleet } from "./fleet/fleet.js";
import type { Governance } from "./governance/governance.js";
import type { OperationRunner } from "./operation-runner.js";
import type { AppServices, InstanceInfo, ServiceSettings } from "./services.js";

/*
 * What each edge uses of the services, by name. Composition hands every edge one object built from
 * the services (`composition/edge-services.ts`), which satisfies each of these; an edge's own type names what it reads, so
 * a reviewer sees an edge's reach without reading it, and a new need is a visible change here.
 * The fleet is seen through the few app-level methods an edge needs (readiness counts, a server's
 * log, the front door's way back from upstreams), never through its upstream connection objects.
 */

/**
 * What an edge that runs operations or asks for admission holds: the runner composition bound to
 * the services (`operation-runner.ts`), never the services themselves.
 */
export interface OperationServices {
  readonly operations: OperationRunner;
}

/** `Mcp-Param-*` header checks (`edges/mcp/param-headers.ts`). */
export interface ParamHeaderServices {
  readonly settings: Pick<ServiceSettings, "paramHeadersRequired">;
  readonly logger: AppServices["logger"];
}

// --- edges/http ---

/** The readiness probe (`routes/health.ts`). */
export interface HealthRouteServices {
  readonly fleet: Pick<Fleet, "readiness">;
}

/** Request counting of the HTTP edge (`routes/metrics.ts`). */
export type RequestMetricsServices = Pick<AppServices, "metrics">;

/** `GET /metrics` (`routes/metrics.ts`): the registry, and admission to read it. */
export type MetricsRouteServices = OperationServices & Pick<AppServices, "metrics">;

/** The authentication hook (`plugins/authentication.ts`): admission of each REST route. */
export type AuthenticationServices = OperationServices;

/**
 * The REST routes of the catalog (`routes/operation-routes.ts`); approval bodies read `approvals`,
 * and `/auth` answers 501 while `settings` say authentication is off.
 */
export type OperationRouteServices = OperationServices &
  Pick<AppServices, "approvals"> & { readonly settings: Pick<ServiceSettings, "authEnabled"> };

/** The signed approval callback (`routes/approvals.ts`): verified with `approvals`, dated by `clock`. */
export type ApprovalRouteServices = OperationServices & Pick<AppServices, "approvals" | "clock">;

/**
 * The WebSocket streams (`ws/register-event-stream.ts`): each handshake is admitted by the runner;
 * without a fleet, no log stream is mounted.
 */
export interface EventStreamServices extends Pick<AppServices, "bus" | "logger">, OperationServices {
  readonly fleet?: Pick<Fleet, "logsOf">;
}

/** The whole HTTP application (`build-app.ts`): what its plugins and routes use. */
export type HttpAppServices = Pick<AppServices, "logger" | "tracer"> &
  AuthenticationServices &
  RequestMetricsServices &
  HealthRouteServices &
  MetricsRouteServices &
  OperationRouteServices &
  ApprovalRouteServices &
  EventStreamServices;

// --- edges/mcp ---

/** The management tool surface (`management-server.ts`): runs the tools, names its version. */
export type ManagementServerServices = OperationServices &
  ParamHeaderServices &
  Pick<AppServices, "logger" | "instance" | "tracer">;

/** The MCP listings' filter (`tool-visibility.ts`). */
export type ToolVisibilityServices = OperationServices;

/** A front-door session's server (`front-door/server.ts`): what its listing hides, and the relay. */
export type FrontDoorServerServices = OperationServices &
  ParamHeaderServices &
  Pick<AppServices, "logger" | "instance" | "headerExposure" | "pins" | "groups" | "tracer">;

/** The front door's sessions and the way back from upstreams (`front-door/hub.ts`). */
export interface FrontDoorHubServices extends Pick<AppServices, "bus"> {
  readonly instance: Pick<InstanceInfo, "instance_id">;
  readonly governance?: Pick<Governance, "readAfterPeerEvent">;
  readonly fleet: Pick<Fleet, "connectedIds" | "setPeer" | "notifyUpstreams" | "relist">;
}

/**
 * The MCP Streamable HTTP endpoint (`http-endpoint.ts`): logs, serves the management surface, and
 * re-checks an open stream's roles.
 */
export type McpEndpointServices = ManagementServerServices & {
  readonly authorizer: Pick<Authorizer, "heldRoles">;
};

/** The stdio entry (`stdio-entry.ts`): serves the management surface. */
export type StdioServices = ManagementServerServices;
