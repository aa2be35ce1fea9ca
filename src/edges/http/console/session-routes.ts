import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ConsoleSessions } from "../../../app/auth/console-sessions.js";
import type { RequestContext } from "../../../app/context.js";
import type { OperationServices } from "../../../app/edge-services.js";
import { REST_BINDINGS, ROUTE_ONLY_PATHS } from "../../../app/rest-routes.js";
import { fieldIssues } from "../../../app/validation.js";
import { GatewayError } from "../../../domain/errors.js";
import { callerOf, type HttpAuthentication, sendAuthenticationFailure } from "../plugins/authentication.js";
import { sendError } from "../plugins/errors.js";
import {
  CONSOLE_SESSION_PATH,
  clearSessionCookie,
  type SecureCookie,
  SIGN_IN_METHODS_PATH,
  secureFor,
  sessionCookieOf,
  setSessionCookie,
} from "./session-cookie.js";

export interface ConsoleSessionOptions {
  /** Null with authentication off: there is no one to sign in. */
  authentication: HttpAuthentication | null;
  sessions: ConsoleSessions | null;
  secureCookie: SecureCookie;
  /** Whether sign-in through the OpenID Connect provider is offered (`consoleOidcRoutes`). */
  oidc: boolean;
}

/**
 * `POST /api/ui/session` exchanges an API key for the session cookie (open to anyone: the key is
 * the credential, counted by the login lockout as any other); `GET` tells the console who is
 * signed in, its CSRF token and which routes it may use (to show no control the caller cannot
 * use; the API still decides every request); `DELETE` signs out. Registered in the `/api` scope:
 * `GET` and `DELETE` are admitted by their catalog entry like any route.
 */
export function consoleSessionRoutes(
  api: FastifyInstance,
  services: OperationServices,
  options: ConsoleSessionOptions,
): void {
  const { authentication: auth, sessions } = options;
  api.post(CONSOLE_SESSION_PATH, async (request, reply) => {
    if (!auth || !sessions) {
      return sendError(
        reply,
        new GatewayError("AuthDisabledError", "Authentication is disabled: no sign-in needed"),
      );
    }
    const apiKey = (request.body as { api_key?: unknown } | undefined)?.api_key;
    if (typeof apiKey !== "string" || apiKey.trim() === "") {
      return sendError(reply, fieldIssues([{ field: "api_key", rule: "must be a non-empty string" }]));
    }
    const credentials = {
      apiKey: apiKey.trim(),
      clientAddress: auth.proxies.clientAddress(request),
      proxyAddress: auth.proxies.proxyOf(request),
    };
    const outcome = await auth.authenticator.authenticate(credentials);
    if (!outcome.ok) return sendAuthenticationFailure(reply, outcome, auth);
    const opened = await sessions.open(outcome.principal, await sessions.keyIdOf(credentials.apiKey));
    const ttl = opened.expiresAt - Date.now() / 1000;
    setSessionCookie(reply, opened.token, ttl, secureFor(request, options.secureCookie, auth.proxies));
    return reply.status(201).send({
      auth_enabled: true,
      principal: principalView(opened.principal),
      csrf_token: opened.csrfToken,
      expires_at: new Date(opened.expiresAt * 1000).toISOString(),
      allowed_routes: await allowedRoutes(services, contextOf(opened.principal, request)),
    });
  });
  api.get(SIGN_IN_METHODS_PATH, async () => ({
    auth_enabled: auth !== null,
    api_key: auth?.authenticator.expectedMethods.includes("api_key") ?? false,
    oidc: options.oidc,
  }));
  api.get(CONSOLE_SESSION_PATH, async (request) => {
    const caller = callerOf(request);
    const ctx: RequestContext = {
      ...contextOf(caller.principal, request),
      authenticated: caller.authenticated,
    };
    return {
      auth_enabled: auth !== null,
      principal: principalView(caller.principal),
      csrf_token: caller.csrfToken ?? null,
      allowed_routes: await allowedRoutes(services, ctx),
    };
  });
  api.delete(CONSOLE_SESSION_PATH, async (request, reply) => {
    const token = sessionCookieOf(request);
    if (token && sessions) await sessions.end(token);
    clearSessionCookie(reply, secureFor(request, options.secureCookie, auth?.proxies));
    return reply.status(204).send();
  });
}

function principalView(principal: RequestContext["principal"]) {
  return { id: principal.id, type: principal.type, tenant_id: principal.tenant_id };
}

function contextOf(principal: RequestContext["principal"], request: FastifyRequest): RequestContext {
  return {
    principal,
    authenticated: principal.type !== "anonymous",
    channel: "rest",
    clientAddress: request.ip,
  };
}

/**
 * `METHOD /path` (relative to `/api`, as the catalog writes it) of every REST route and WebSocket
 * stream (`GET /ws/events`) the caller may use.
 */
async function allowedRoutes(services: OperationServices, ctx: RequestContext): Promise<string[]> {
  const allowed: string[] = [];
  for (const binding of REST_BINDINGS) {
    if (binding.deniedWithAuth && ctx.authenticated) continue;
    const route = `${binding.method} ${binding.path}`;
    if (await services.operations.mayAdmit(binding.operation, ctx, { route })) allowed.push(route);
  }
  for (const [path, rule] of ROUTE_ONLY_PATHS) {
    const route = `GET ${path}`;
    if (await services.operations.mayAdmit(rule, ctx, { route })) allowed.push(route);
  }
  return allowed;
}
