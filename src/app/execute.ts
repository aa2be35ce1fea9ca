import type { z } from "zod";
import { GatewayError } from "../domain/errors.js";
import type { RequestContext } from "./context.js";
import { countRateLimitRefusal } from "./observability/metrics-feed.js";
import type { Operation } from "./operation.js";
import type { AppServices } from "./services.js";
import { zodValidation } from "./validation.js";

export interface ExecuteOptions {
  /** Read-only tools are exempt from the command-bus rate limit (spec 2 §8). */
  rateLimitExempt?: boolean;
  /** `METHOD /path` or `mcp:<tool>`, for the external policy engine (else the context's). */
  route?: string;
  /** The id the request names, for the external policy engine (else the context's). */
  resourceId?: string;
}

/**
 * The one pipeline every edge goes through: validate the input, authorize the caller, charge the
 * command-bus rate limit, run. Events are published by the fleet as state changes; with
 * `event_store.commit: before_answer` a command answers once they are committed, and is refused
 * (`StoreUnavailableError`) before it runs while the event store is failing.
 */
export async function execute<S extends z.ZodType, O>(
  services: AppServices,
  operation: Operation<S, O>,
  rawInput: unknown,
  ctx: RequestContext,
  options: ExecuteOptions = {},
): Promise<O> {
  const parsed = operation.input.safeParse(rawInput ?? {});
  if (!parsed.success) throw zodValidation(parsed.error);
  let authorized: RequestContext;
  try {
    // Nearly every call has no input-dependent permission: nothing is allocated then.
    const extra = operation.permissionsFor?.(parsed.data);
    const checked =
      extra === undefined || extra.length === 0
        ? operation
        : { ...operation, permissions: [...new Set([...operation.permissions, ...extra])] };
    authorized = await authorize(services, checked, ctx, options);
    if (!options.rateLimitExempt) services.rateLimiter?.charge(operation, authorized);
  } catch (error) {
    // Refused before it ran: counted when a rate limit refused it, recorded by the operation.
    countRateLimitRefusal(services.metrics, error);
    if (error instanceof GatewayError) operation.recordRefusal?.(services, parsed.data, ctx, error);
    throw error;
  }
  const run = (): Promise<O> =>
    // With coordination, a follower hands a leader-only command to the fleet manager.
    operation.leaderOnly && services.leaderCommands
      ? services.leaderCommands.run(operation as Operation<never, O>, parsed.data, authorized)
      : operation.run(services, parsed.data, authorized);
  // A command's answer (gateway_call's included) waits for its events; a query records nothing.
  const commits = operation.kind === "command" ? services.commitBeforeAnswer : undefined;
  return commits ? commits.answer(run) : run();
}

/**
 * With authentication off every caller may do everything (spec 2 §4 "Visibility"). With it on, the
 * caller must be authenticated (or anonymous callers allowed) and its roles must grant every
 * permission the operation lists: deny by default.
 */
export async function authorize(
  services: AppServices,
  operation: Pick<Operation, "name" | "permissions" | "tenantAware" | "checkedPerResource">,
  ctx: RequestContext,
  target: Pick<ExecuteOptions, "route" | "resourceId"> = {},
): Promise<RequestContext> {
  const { settings, authorizer } = services;
  if (!settings.authEnabled) return ctx;
  if (!ctx.authenticated && !settings.allowAnonymous) {
    throw new GatewayError("AuthenticationError", "No valid credentials provided");
  }
  if (operation.permissions.length === 0) {
    if (!ctx.authenticated) throw new GatewayError("AuthenticationError", "No valid credentials provided");
    return ctx;
  }
  const route = target.route ?? ctx.route;
  const tenantAware = operation.tenantAware ?? false;
  const decision = await authorizer.decide(ctx.principal, operation.permissions, {
    tenantAware,
    route: route ?? null,
    resourceId: target.resourceId ?? ctx.resourceId ?? null,
    forSomeId: operation.checkedPerResource ?? false,
  });
  services.accessEvents?.authorization(
    ctx.principal,
    operation.permissions,
    decision.allowed,
    route ?? operation.name,
  );
  if (!decision.allowed) {
    // Named: the first permission the roles lack, else (the policy engine refused) the first listed.
    const missing =
      (await authorizer.firstUngranted(ctx.principal, operation.permissions, tenantAware)) ??
      operation.permissions[0] ??
      "";
    throw new GatewayError("AccessDeniedError", `${missing} permission required`, { permission: missing });
  }
  if (decision.tenant === null && !decision.perResource) return ctx;
  return {
    ...ctx,
    ...(decision.tenant !== null && { confinedTo: decision.tenant }),
    ...(decision.perResource && { perResource: true }),
  };
}

/**
 * Records an operation refused at an edge before `execute` (an egress caller lacking the
 * permission): the authorization denial, and the refused invocations its input names.
 */
export function recordEdgeRefusal(
  services: AppServices,
  operation: Operation,
  rawInput: unknown,
  ctx: RequestContext,
  resource: string,
  message: string,
): void {
  services.accessEvents?.authorization(ctx.principal, operation.permissions, false, resource);
  if (!operation.recordRefusal) return;
  const parsed = operation.input.safeParse(rawInput ?? {});
  if (parsed.success) {
    operation.recordRefusal(services, parsed.data, ctx, new GatewayError("AccessDeniedError", message));
  }
}
