import type { FastifyRequest } from "fastify";
import type { AccessRule, StreamGrant } from "../../../app/admit.js";
import { ANONYMOUS, type Principal } from "../../../app/context.js";
import type { Logger } from "../../../app/ports/logger.js";
import type { MaybePromise } from "../../../domain/maybe-promise.js";
import { sessionCookieOf } from "../console/session-cookie.js";
import type { OriginCheck } from "../origin-policy.js";
import { headerCredentials, singleHeader } from "../plugins/authentication.js";
import type { StreamIdentity } from "./event-connection.js";

/** Credentials as the handshake carried them; each is absent when not sent or empty. */
export interface StreamCredentials {
  /** The API-key header (`auth.api_key.header_name`, default `X-API-Key`). */
  apiKey?: string;
  /** The token of `Authorization: Bearer <token>`. */
  bearer?: string;
  /** The `?token=` query parameter, for browsers, which cannot set headers on a WebSocket. */
  token?: string;
  /** The console's session cookie (docs/console.md), used when nothing else was sent. */
  session?: string;
}

export type StreamAuthentication =
  | { ok: true; principal: Principal; authenticated: boolean }
  | { ok: false; reason: string };

/**
 * Establishes who opens the stream. A refusal's `reason` is sent to the client as the close
 * reason, so it must carry no secret. Authentication proper is supplied by the composition.
 */
export type StreamAuthenticator = (
  credentials: StreamCredentials,
  request: FastifyRequest,
  /** `recheck`: an open connection judged again (no lockout counted or consulted, no event). */
  judge?: "handshake" | "recheck",
) => Promise<StreamAuthentication>;

/** What a stream asks of its caller. */
export interface StreamAccess {
  /** `GET <path>` without the `/api` prefix, as the policy engine names routes. */
  readonly route: string;
  /** Its route-only entry of the catalog: `audit:read` for the event streams, `mcp_servers:read` for logs. */
  readonly rule: AccessRule;
}

/**
 * Whether the principal is admitted to the stream (`admitStream`, bound by composition): the tenant
 * it is confined to (null for a global grant), or null when refused.
 */
export type StreamAuthorizer = (
  principal: Principal,
  authenticated: boolean,
  access: StreamAccess,
) => MaybePromise<StreamGrant | null>;

/** With authentication off every caller is the anonymous principal, and it may read the stream. */
export const allowAnonymous: StreamAuthenticator = async () => ({
  ok: true,
  principal: ANONYMOUS,
  authenticated: false,
});

export type HandshakeVerdict = ({ ok: true } & StreamIdentity) | { ok: false; reason: string };

export interface HandshakeRules {
  originAllowed: OriginCheck;
  apiKeyHeader: string;
  authenticate: StreamAuthenticator;
  authorize: StreamAuthorizer;
  logger: Logger;
  access: StreamAccess;
}

export const ORIGIN_REFUSED = "Origin not allowed";
const AUTHENTICATION_FAILED = "Authentication failed";

/**
 * Origin first (a foreign page must learn nothing, not even whether its credentials work), then
 * authentication, then authorization.
 */
export async function judgeHandshake(
  request: FastifyRequest,
  rules: HandshakeRules,
  judge: "handshake" | "recheck" = "handshake",
): Promise<HandshakeVerdict> {
  const origin = singleHeader(request, "origin");
  if (!rules.originAllowed(origin)) {
    rules.logger.info({ origin }, "event stream refused: origin not allowed");
    return { ok: false, reason: ORIGIN_REFUSED };
  }
  let authentication: StreamAuthentication;
  try {
    authentication = await rules.authenticate(credentialsOf(request, rules.apiKeyHeader), request, judge);
  } catch (error) {
    rules.logger.error({ err: String(error) }, "event stream authentication threw");
    return { ok: false, reason: AUTHENTICATION_FAILED };
  }
  if (!authentication.ok) {
    rules.logger.info({ reason: authentication.reason }, "event stream refused: not authenticated");
    return { ok: false, reason: authentication.reason };
  }
  const { principal, authenticated } = authentication;
  const grant = await rules.authorize(principal, authenticated, rules.access);
  if (grant === null) {
    const permission = rules.access.rule.permissions.join(" and ");
    rules.logger.info({ principal_id: principal.id, permission }, "stream refused: permission missing");
    return { ok: false, reason: `Access denied: ${permission} required` };
  }
  const { tenantScope } = grant;
  return { ok: true, principal, authenticated, tenantScope };
}

export function credentialsOf(request: FastifyRequest, apiKeyHeader: string): StreamCredentials {
  const credentials: StreamCredentials = headerCredentials(request, apiKeyHeader);
  const token = (request.query as Record<string, unknown> | undefined)?.token;
  if (typeof token === "string" && token !== "") credentials.token = token;
  if (!credentials.apiKey && !credentials.bearer && !credentials.token) {
    const session = sessionCookieOf(request);
    if (session) credentials.session = session;
  }
  return credentials;
}
