import type { Decision } from "../domain/auth/decide.js";
import { GatewayError } from "../domain/errors.js";
import { andThen, type MaybePromise } from "../domain/maybe-promise.js";
import type { RequestContext } from "./context.js";
import { countRateLimitRefusal } from "./observability/metrics-feed.js";
import type { Operation, Permission } from "./operation.js";
import type { AppServices } from "./services.js";

/**
 * What a caller must hold to be let in: an operation of the catalog, or a route-only entry (a
 * WebSocket stream, `GET /metrics`). The catalog is the only place these are written.
 */
export interface AccessRule {
  readonly name: string;
  /** Every permission listed is required; empty means any authenticated principal. */
  readonly permissions: readonly Permission[];
  /**
   * A grant held only at tenant scope may pass, confining the caller to that tenant
   * (`RequestContext.confinedTo`); otherwise a global grant is needed (spec 2 §5).
   */
  readonly tenantAware?: boolean;
  /** A grant for some ids only passes, with `RequestContext.perResource` set (see `Operation`). */
  readonly checkedPerResource?: boolean;
  /**
   * The admin role at global scope and nothing else (everything under `/auth`, spec 2 §5): no
   * other role, however wide its grants, passes.
   */
  readonly adminOnly?: boolean;
}

/** What the request names, for the external policy engine's input and the authorization events. */
export interface AdmitTarget {
  /** `METHOD /path` or `mcp:<tool or method>` (else the context's `route`). */
  readonly route?: string | undefined;
  /** The id the request names: a path parameter, a tool's `mcp_server` (else the context's). */
  readonly resourceId?: string | undefined;
}

/** How an operation is admitted by `execute` (see {@link admitToRun}). */
export interface AdmitOptions extends AdmitTarget {
  /** Read-only tools and the front door's relay are exempt from the command-bus rate limit (spec 2 §8). */
  readonly rateLimitExempt?: boolean;
  /**
   * The context is what {@link admit} answered for this very operation at the edge (the REST route's
   * hook, the MCP tool call before its arguments were read): the decision is not made again.
   */
  readonly admitted?: boolean;
}

/** Authentication off: every caller may do everything (spec 2 §4 "Visibility"). */
const ALLOWED: Decision = Object.freeze({ allowed: true, granted_by_role: null, tenant: null });

/** What the authorization events name for an admin-only rule. */
const ADMIN_ROLE: readonly string[] = Object.freeze(["role:admin"]);

/**
 * The decision for a caller and a rule, without publishing anything: null when the caller must
 * authenticate first (no identity; or an anonymous caller of a rule open to any authenticated one).
 * Deny by default. At once when the caller's roles are in memory and no policy engine is asked.
 *
 * - Identity: an authenticated caller, or an anonymous one with `auth.allow_anonymous` over HTTP.
 *   A stdio client is who `auth.stdio.principal` declares, or no one (spec 2 §4).
 * - Admin-only rules: the admin role at global scope.
 * - Otherwise every listed permission, granted by the caller's roles (globally, or at one tenant's
 *   scope for a tenant-aware rule; for some ids only for a per-resource rule), then by the policy
 *   engine when one is configured.
 */
function decideFor(
  services: AppServices,
  rule: AccessRule,
  ctx: RequestContext,
  target: AdmitTarget | undefined,
): MaybePromise<Decision | null> {
  const { settings, authorizer } = services;
  if (!settings.authEnabled) return ALLOWED;
  const identified = ctx.authenticated || (settings.allowAnonymous && ctx.channel !== "mcp-stdio");
  if (!identified) return null;
  if (rule.adminOnly) {
    if (!ctx.authenticated) return null;
    return andThen(authorizer.isAdmin(ctx.principal), (admin) =>
      admin ? ALLOWED : { allowed: false, granted_by_role: null, tenant: null },
    );
  }
  if (rule.permissions.length === 0) return ctx.authenticated ? ALLOWED : null;
  return authorizer.decide(ctx.principal, rule.permissions, {
    tenantAware: rule.tenantAware ?? false,
    route: target?.route ?? ctx.route ?? null,
    resourceId: target?.resourceId ?? ctx.resourceId ?? null,
    forSomeId: rule.checkedPerResource ?? false,
  });
}

/**
 * Whether the caller would be admitted to `rule`: the listings' filter (the MCP tools a caller is
 * shown, whether it is served upstream tools at all). Publishes nothing.
 */
export function mayAdmit(
  services: AppServices,
  rule: AccessRule,
  ctx: RequestContext,
  target?: AdmitTarget,
): MaybePromise<boolean> {
  return andThen(decideFor(services, rule, ctx, target), (decision) => decision?.allowed === true);
}

/** What a WebSocket stream's caller was admitted to: the tenant it is confined to, or null (global). */
export interface StreamGrant {
  readonly tenantScope: string | null;
}

/**
 * The decision for a WebSocket stream (its handshake, and each periodic re-check of the open
 * connection): the grant, or null when refused. Publishes nothing: a stream is judged again every
 * few seconds for as long as it is open, and its refusal is the close reason the client reads.
 */
export function admitStream(
  services: AppServices,
  rule: AccessRule,
  ctx: RequestContext,
  target?: AdmitTarget,
): MaybePromise<StreamGrant | null> {
  return andThen(decideFor(services, rule, ctx, target), (decision) =>
    decision?.allowed ? { tenantScope: decision.tenant } : null,
  );
}

/**
 * The one admission of every request: REST routes (their `onRequest` hook), `GET /metrics`, the
 * MCP tool calls of both surfaces and the front door's relayed requests, and `execute` for any
 * operation no edge admitted. (The WebSocket streams are decided by {@link admitStream}, by the
 * same rules, without a record.) Answers the context the request runs with
 * (`confinedTo` and `perResource` set as the grant decided), or throws:
 *
 * - `AuthenticationError` when the caller must authenticate first;
 * - `AccessDeniedError` naming the first permission the roles lack (else, the policy engine having
 *   refused, the first listed) in `details.permission`, or `admin role required`.
 *
 * Publishes the outcome once (`AuthorizationGranted`, sampled, or `AuthorizationDenied`) for rules
 * that name a permission or the admin role; and, for an operation whose input names tool calls
 * (`Operation.recordRefusal`), records each as a refused invocation (audit `denied`,
 * `ToolInvocationDenied`). `input` is what the operation is given; `raw` when not yet validated
 * (an unreadable input names no invocation).
 */
export function admit(
  services: AppServices,
  rule: AccessRule | Operation,
  ctx: RequestContext,
  target?: AdmitTarget,
  input?: unknown,
  raw = false,
): MaybePromise<RequestContext> {
  const decision = decideFor(services, rule, ctx, target);
  // A decision at hand is settled without a closure: the hot path of a caller whose roles are cached.
  if (!(decision instanceof Promise)) return settle(services, rule, ctx, target, input, raw, decision);
  return decision.then((decided) => settle(services, rule, ctx, target, input, raw, decided));
}

/** Publishes the decision, and answers the admitted context or throws the refusal. */
function settle(
  services: AppServices,
  rule: AccessRule | Operation,
  ctx: RequestContext,
  target: AdmitTarget | undefined,
  input: unknown,
  raw: boolean,
  decision: Decision | null,
): MaybePromise<RequestContext> {
  const named = rule.adminOnly ? ADMIN_ROLE : rule.permissions;
  if (named.length > 0 && services.settings.authEnabled) {
    const resource = target?.route ?? ctx.route ?? rule.name;
    services.accessEvents?.authorization(ctx.principal, named, decision?.allowed === true, resource);
  }
  if (decision?.allowed) {
    if (decision.tenant === null && !decision.perResource) return ctx;
    return {
      ...ctx,
      ...(decision.tenant !== null && { confinedTo: decision.tenant }),
      ...(decision.perResource && { perResource: true }),
    };
  }
  return andThen(refusalOf(services, rule, ctx, decision), (refusal) => {
    recordRefusal(services, rule, ctx, refusal, input, raw);
    throw refusal;
  });
}

/** The refusal of a caller `decideFor` did not admit. */
function refusalOf(
  services: AppServices,
  rule: AccessRule,
  ctx: RequestContext,
  decision: Decision | null,
): MaybePromise<GatewayError> {
  if (decision === null) return new GatewayError("AuthenticationError", "No valid credentials provided");
  if (rule.adminOnly) return new GatewayError("AccessDeniedError", "admin role required", { role: "admin" });
  const tenantAware = rule.tenantAware ?? false;
  return andThen(
    services.authorizer.firstUngranted(ctx.principal, rule.permissions, tenantAware),
    (lacked) => {
      const missing = lacked ?? rule.permissions[0] ?? "";
      return new GatewayError("AccessDeniedError", `${missing} permission required`, { permission: missing });
    },
  );
}

/** The refused invocations an operation's input names (see `Operation.recordRefusal`). */
function recordRefusal(
  services: AppServices,
  rule: AccessRule | Operation,
  ctx: RequestContext,
  error: GatewayError,
  input: unknown,
  raw: boolean,
): void {
  if (!("recordRefusal" in rule) || !rule.recordRefusal || input === undefined) return;
  if (!raw) {
    rule.recordRefusal(services, input, ctx, error);
    return;
  }
  const parsed = rule.input.safeParse(input);
  if (parsed.success) rule.recordRefusal(services, parsed.data, ctx, error);
}

/**
 * `execute`'s admission of a validated input: the decision (unless the edge made it for this
 * operation already, and the input asks for no permission beyond the operation's), then the
 * command-bus rate limit (unless exempt). A refusal by the rate limit is counted and recorded like
 * an authorization refusal.
 */
export function admitToRun(
  services: AppServices,
  operation: Operation,
  input: unknown,
  ctx: RequestContext,
  options: AdmitOptions,
): MaybePromise<RequestContext> {
  // Nearly every call has no input-dependent permission: nothing is allocated then.
  const extra = operation.permissionsFor?.(input);
  const more = extra !== undefined && extra.length > 0;
  const decided =
    options.admitted && !more
      ? ctx
      : admit(
          services,
          more
            ? { ...operation, permissions: [...new Set([...operation.permissions, ...extra])] }
            : operation,
          ctx,
          options,
          input,
        );
  if (options.rateLimitExempt || operation.rateLimitExempt || !services.rateLimiter) return decided;
  if (!(decided instanceof Promise)) return charge(services, operation, input, ctx, decided);
  return decided.then((admitted) => charge(services, operation, input, ctx, admitted));
}

/** Charges the command-bus rate limit; a refusal is counted and recorded like any other. */
function charge(
  services: AppServices,
  operation: Operation,
  input: unknown,
  ctx: RequestContext,
  admitted: RequestContext,
): RequestContext {
  try {
    services.rateLimiter?.charge(operation, admitted);
  } catch (error) {
    countRateLimitRefusal(services.metrics, error);
    if (error instanceof GatewayError) recordRefusal(services, operation, ctx, error, input, false);
    throw error;
  }
  return admitted;
}
