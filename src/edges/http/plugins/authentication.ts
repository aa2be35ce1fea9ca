import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import type { AccessRule } from "../../../app/admit.js";
import { type Authentication, type Authenticator, NO_CREDENTIALS } from "../../../app/auth/authenticator.js";
import { ANONYMOUS, type Principal, type RequestContext } from "../../../app/context.js";
import type { AuthenticationServices } from "../../../app/edge-services.js";
import { routeRule } from "../../../app/rest-routes.js";
import { GatewayError } from "../../../domain/errors.js";
import { andThen, type MaybePromise } from "../../../domain/maybe-promise.js";
import type { TrustedProxies } from "../client-address.js";
import {
  CONSOLE_PUBLIC_ROUTES,
  csrfSatisfied,
  sendCsrfFailure,
  sessionCookieOf,
} from "../console/session-cookie.js";
import { hooksOf } from "../route-hooks.js";
import { WEBSOCKET_PATHS } from "../ws/stream-paths.js";
import { sendError } from "./errors.js";

/** Who a request comes from, once authenticated (and, on REST, admitted by the route's rule). */
export interface Caller {
  principal: Principal;
  authenticated: boolean;
  clientAddress: string;
  /** The route's rule admitted the caller: `execute` does not decide again. */
  admitted?: true;
  /** The tenant a tenant-scoped grant confines the caller to on this route. */
  confinedTo?: string;
  /** Admitted by a grant for some ids only (see `Operation.checkedPerResource`). */
  perResource?: true;
  /** `METHOD /path` of the route (path as declared, without the prefix), for the policy engine. */
  route?: string;
  /** The first path parameter's value, for the policy engine. */
  resourceId?: string;
  /** Set when the console's session cookie authenticated the request: its CSRF token. */
  csrfToken?: string;
}

declare module "fastify" {
  interface FastifyRequest {
    caller: Caller | null;
  }
}

export interface HttpAuthentication {
  authenticator: Authenticator;
  proxies: TrustedProxies;
  /** `auth.api_key.header_name`. */
  apiKeyHeader: string;
  /** RFC 9728 metadata URL advertised in `WWW-Authenticate` (when `oidc.resource_uri` is set). */
  resourceMetadataUrl: string | null;
}

/**
 * Establishes the caller of an HTTP request from its API-key header or `Authorization: Bearer`:
 * at once when the authenticator needs no I/O, else a promise.
 */
export function authenticateRequest(
  request: FastifyRequest,
  auth: HttpAuthentication,
  judge: "request" | "recheck" = "request",
  /** The console's session cookie counts too (REST only: never `/mcp`, docs/console.md). */
  withSession = false,
): MaybePromise<Authentication & { clientAddress: string }> {
  const clientAddress = auth.proxies.clientAddress(request);
  const { apiKey, bearer } = headerCredentials(request, auth.apiKeyHeader);
  const session = withSession && !apiKey && !bearer ? sessionCookieOf(request) : undefined;
  const credentials = { apiKey, bearer, session, clientAddress, proxyAddress: auth.proxies.proxyOf(request) };
  // A recheck (an open stream judged again) neither counts toward nor consults the lockout.
  const outcome =
    judge === "recheck"
      ? auth.authenticator.recheck(credentials)
      : auth.authenticator.authenticate(credentials);
  return andThen(outcome, (settled) => withAddress(settled, clientAddress));
}

/**
 * The outcome with the client's address. A success is spelled out: spreading an object whose shape
 * varies cost a third of authenticating a request.
 */
function withAddress(
  outcome: Authentication,
  clientAddress: string,
): Authentication & { clientAddress: string } {
  if (!outcome.ok) return { ...outcome, clientAddress };
  if (outcome.csrfToken !== undefined) return { ...outcome, clientAddress };
  return { ok: true, principal: outcome.principal, authenticated: outcome.authenticated, clientAddress };
}

/**
 * The refusal of an unauthenticated request (spec 2 §7): 401 with the flat body
 * `{error:'authentication_failed', message, details:{auth_method, expected_methods}}` and a
 * `WWW-Authenticate` challenge; 429 with `Retry-After` while the client address is locked out.
 */
export function sendAuthenticationFailure(
  reply: FastifyReply,
  failure: Extract<Authentication, { ok: false }>,
  auth: HttpAuthentication,
): FastifyReply {
  if (failure.retryAfterSeconds !== undefined) {
    const details = { retry_after: failure.retryAfterSeconds };
    return sendError(reply, new GatewayError("too_many_attempts", failure.message, details));
  }
  const expected = auth.authenticator.expectedMethods;
  const details = {
    auth_method: failure.method,
    expected_methods: expected,
    ...(failure.reason !== undefined && { reason: failure.reason }),
  };
  reply.header("WWW-Authenticate", challenge(expected, auth));
  return sendError(reply, new GatewayError("authentication_failed", failure.message, details));
}

function challenge(expected: readonly string[], auth: HttpAuthentication): string {
  const challenges: string[] = [];
  if (expected.includes("jwt")) {
    const metadata = auth.resourceMetadataUrl ? `, resource_metadata="${auth.resourceMetadataUrl}"` : "";
    challenges.push(`Bearer realm="airlock"${metadata}`);
  }
  if (expected.includes("api_key")) challenges.push(`ApiKey realm="airlock", header="${auth.apiKeyHeader}"`);
  return challenges.join(", ") || 'Bearer realm="airlock"';
}

/** Routes under `/api` that answer without authentication: the mirrored health probes. */
const PUBLIC = /^\/health\//;

/**
 * Authentication and admission for REST (spec 2 §5): every `/api` route but the health probes and
 * the WebSocket (whose handshake is admitted by its own catalog entry) needs an authenticated
 * caller that `admit` lets in under the route's rule, its operation's (`routeRule`), before the
 * body is read; a route the catalog does not know is denied (403).
 */
export function registerAuthentication(
  app: FastifyInstance,
  services: AuthenticationServices,
  auth: HttpAuthentication,
  prefix: string,
): void {
  app.decorateRequest("caller", null);
  // Each route under the prefix gets a hook of its own, with its path known and its rule looked
  // up once per method rather than on every request; the others (`/mcp`, which authenticates
  // itself, and the public routes) get none. A caller whose key and roles are in memory is admitted
  // without a promise.
  app.addHook("onRoute", (route) => {
    if (!route.url.startsWith(`${prefix}/`)) return;
    const path = route.url.slice(prefix.length);
    // The WebSockets admit their handshake themselves (`ws/handshake.ts`).
    if (PUBLIC.test(path) || path.startsWith(WEBSOCKET_PATHS)) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // The console's sign-in routes: their input is the credential (docs/console.md).
    if (methods.some((method) => CONSOLE_PUBLIC_ROUTES.has(`${method} ${path}`))) return;
    route.onRequest = [admission(path), ...hooksOf(route.onRequest)];
  });
  const admission = (path: string): onRequestHookHandler => {
    const rules = new Map<string, AccessRule | undefined>();
    const ruleOf = (method: string): AccessRule | undefined => {
      if (!rules.has(method)) rules.set(method, routeRule(method, path));
      return rules.get(method);
    };
    return (request, reply, done) => {
      let admitted: MaybePromise<boolean>;
      try {
        admitted = andThen(authenticateRequest(request, auth, "request", true), (outcome) =>
          admitRequest(request, reply, path, ruleOf(request.method), outcome),
        );
      } catch (error) {
        return done(error as Error);
      }
      if (admitted === true) return done();
      if (admitted instanceof Promise) {
        admitted.then((yes) => {
          if (yes) done();
        }, done);
      }
    };
  };
  /** Whether the authenticated request may go on; when not, its refusal was sent. */
  const admitRequest = (
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    rule: AccessRule | undefined,
    outcome: Authentication & { clientAddress: string },
  ): MaybePromise<boolean> => {
    if (!outcome.ok) return refuse(sendAuthenticationFailure(reply, outcome, auth));
    if (outcome.csrfToken !== undefined && !csrfSatisfied(request, outcome.csrfToken)) {
      return refuse(sendCsrfFailure(reply));
    }
    const route = `${request.method} ${path}`;
    const resourceId = firstParam(request.params);
    const caller: Caller = {
      principal: outcome.principal,
      authenticated: outcome.authenticated,
      clientAddress: outcome.clientAddress,
      route,
      ...(resourceId !== undefined && { resourceId }),
      ...(outcome.csrfToken !== undefined && { csrfToken: outcome.csrfToken }),
    };
    request.caller = caller;
    if (!rule) return refuse(deny(reply, "this route is not permitted"));
    const ctx: RequestContext = {
      principal: caller.principal,
      authenticated: caller.authenticated,
      channel: "rest",
      route,
      ...(resourceId !== undefined && { resourceId }),
    };
    let decided: MaybePromise<RequestContext>;
    try {
      decided = services.operations.admit(rule, ctx);
    } catch (error) {
      return refused(reply, rule, error);
    }
    const settle = (admitted: RequestContext): true => {
      caller.admitted = true;
      if (admitted.confinedTo !== undefined) caller.confinedTo = admitted.confinedTo;
      if (admitted.perResource) caller.perResource = true;
      return true;
    };
    if (!(decided instanceof Promise)) return settle(decided);
    return decided.then(settle, (error: unknown) => refused(reply, rule, error));
  };
  /** `admit`'s refusal in REST's words: 401 with the challenge, or 403 naming what the rule needs. */
  const refused = (reply: FastifyReply, rule: AccessRule, error: unknown): false => {
    if (!(error instanceof GatewayError)) throw error;
    if (error.type === "AuthenticationError") {
      return refuse(
        sendAuthenticationFailure(reply, { ok: false, message: NO_CREDENTIALS, method: "none" }, auth),
      );
    }
    if (error.type !== "AccessDeniedError") throw error;
    return refuse(
      deny(
        reply,
        rule.adminOnly ? "admin role required" : `${rule.permissions.join(" and ")} permission required`,
      ),
    );
  };
}

/** A request stopped by the refusal just sent. */
function refuse(_sent: FastifyReply): false {
  return false;
}

function deny(reply: FastifyReply, message: string): FastifyReply {
  return sendError(reply, new GatewayError("AccessDeniedError", `Access denied: ${message}`));
}

/** The caller of a request that passed authentication, or the anonymous caller when auth is off. */
export function callerOf(request: FastifyRequest): Caller {
  return (
    request.caller ?? {
      principal: ANONYMOUS,
      authenticated: false,
      clientAddress: request.socket.remoteAddress ?? "unknown",
    }
  );
}

/**
 * The credentials a request's headers carry: the API-key header and the token of
 * `Authorization: Bearer`. A header sent more than once counts as absent rather than guessing.
 */
export function headerCredentials(
  request: FastifyRequest,
  apiKeyHeader: string,
): { apiKey?: string; bearer?: string } {
  const credentials: { apiKey?: string; bearer?: string } = {};
  const apiKey = singleHeader(request, headerKey(apiKeyHeader))?.trim();
  if (apiKey) credentials.apiKey = apiKey;
  const authorization = singleHeader(request, "authorization");
  const bearer =
    authorization === undefined ? undefined : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization)?.[1];
  if (bearer) credentials.bearer = bearer;
  return credentials;
}

/** The last header name asked for and its key in Node's headers (lower case): it is one configured name. */
let lastHeader = { name: "", key: "" };

function headerKey(name: string): string {
  if (lastHeader.name !== name) lastHeader = { name, key: name.toLowerCase() };
  return lastHeader.key;
}

/** A header sent once; a repeated header counts as absent rather than guessing which is meant. */
export function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" ? value : undefined;
}

/** The value of a route's first path parameter (`/mcp_servers/:id/...`), if it has one. */
function firstParam(params: unknown): string | undefined {
  if (typeof params !== "object" || params === null) return undefined;
  for (const value of Object.values(params)) if (typeof value === "string" && value !== "") return value;
  return undefined;
}
