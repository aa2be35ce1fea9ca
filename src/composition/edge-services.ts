import type {
  FrontDoorHubServices,
  FrontDoorServerServices,
  HttpAppServices,
  McpEndpointServices,
  StdioServices,
} from "../app/edge-services.js";
import { operationRunner } from "../app/operation-runner.js";
import type { AppServices } from "../app/services.js";

/** Everything the edges use (`app/edge-services.ts`): the HTTP application, both MCP surfaces, stdio. */
export type EdgeServices = HttpAppServices &
  McpEndpointServices &
  StdioServices &
  FrontDoorServerServices &
  FrontDoorHubServices;

/**
 * The one object composition hands the edges: the few services they read, by reference (each is
 * built once by `assembleServices` and never replaced), and the operation runner bound to the
 * services. No edge is given `AppServices`, so none can reach past what its own type names.
 */
export function edgeServices(services: AppServices): EdgeServices {
  const { logger, metrics, clock, bus, fleet, settings, instance, groups, authorizer } = services;
  return {
    operations: operationRunner(services),
    logger,
    metrics,
    clock,
    bus,
    fleet,
    settings,
    instance,
    groups,
    authorizer,
    ...(services.approvals && { approvals: services.approvals }),
    ...(services.pins && { pins: services.pins }),
    ...(services.headerExposure && { headerExposure: services.headerExposure }),
    ...(services.governance && { governance: services.governance }),
    ...(services.tracer && { tracer: services.tracer }),
  };
}
