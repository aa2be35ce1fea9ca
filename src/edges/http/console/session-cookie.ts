import { timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { GatewayError } from "../../../domain/errors.js";
import type { TrustedProxies } from "../client-address.js";
import { sendError } from "../plugins/errors.js";

/** The console's sign-in, relative to `/api` (docs/console.md). */
export const CONSOLE_SESSION_PATH = "/ui/session";
/** The sign-in methods the console may offer (public: the sign-in page asks before anyone is known). */
export const SIGN_IN_METHODS_PATH = "/ui/sign-in";
/** Sign-in through the OpenID Connect provider: sent there, and back with a code. */
export const OIDC_LOGIN_PATH = "/ui/oidc/login";
export const OIDC_CALLBACK_PATH = "/ui/oidc/callback";

/** Routes under `/api` that need no credential: each one's own input is (or leads to) the credential. */
export const CONSOLE_PUBLIC_ROUTES: ReadonlySet<string> = new Set([
  `POST ${CONSOLE_SESSION_PATH}`,
  `GET ${SIGN_IN_METHODS_PATH}`,
  `GET ${OIDC_LOGIN_PATH}`,
  `GET ${OIDC_CALLBACK_PATH}`,
]);

/** The console's session cookie (docs/console.md). */
export const SESSION_COOKIE = "airlock_session";

/** The header every console write carries its session's CSRF token in. */
export const CSRF_HEADER = "x-csrf-token";

/** Whether the cookie is marked `Secure`: always, never, or when the request came over HTTPS. */
export type SecureCookie = boolean | "auto";

/** The value of cookie `name` the request carries, or undefined; a cookie sent twice counts as absent. */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== "string" || !header.includes(name)) return undefined;
  let found: string | undefined;
  for (const pair of header.split(";")) {
    const separator = pair.indexOf("=");
    if (separator < 0 || pair.slice(0, separator).trim() !== name) continue;
    if (found !== undefined) return undefined;
    found = pair.slice(separator + 1).trim();
  }
  return found;
}

/** The session cookie's token, or undefined: absent, sent twice, or not hex (not issued here). */
export function sessionCookieOf(request: FastifyRequest): string | undefined {
  const found = cookieOf(request, SESSION_COOKIE);
  return found !== undefined && /^[0-9a-f]{16,128}$/.test(found) ? found : undefined;
}

/** Sets the cookie: HttpOnly (no script reads it), SameSite=Strict, for every path of the gateway. */
export function setSessionCookie(reply: FastifyReply, token: string, maxAgeS: number, secure: boolean): void {
  const life = Math.max(0, Math.floor(maxAgeS));
  reply.header(
    "Set-Cookie",
    cookieText(SESSION_COOKIE, token, { path: "/", maxAgeS: life, sameSite: "Strict", secure }),
  );
}

/** Makes the browser drop the cookie. */
export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.header(
    "Set-Cookie",
    cookieText(SESSION_COOKIE, "", { path: "/", maxAgeS: 0, sameSite: "Strict", secure }),
  );
}

/** A `Set-Cookie` value of an HttpOnly cookie (no script of the page ever reads the console's cookies). */
export function cookieText(
  name: string,
  value: string,
  options: { path: string; maxAgeS: number; sameSite: "Strict" | "Lax"; secure: boolean },
): string {
  const { path, maxAgeS, sameSite, secure } = options;
  return `${name}=${value}; Path=${path}; Max-Age=${maxAgeS}; HttpOnly; SameSite=${sameSite}${secure ? "; Secure" : ""}`;
}

/**
 * Whether the request came over HTTPS: its own socket, or `X-Forwarded-Proto: https` from a
 * trusted proxy (a TLS-terminating load balancer).
 */
export function cameOverHttps(request: FastifyRequest, proxies: TrustedProxies | undefined): boolean {
  if ((request.socket as { encrypted?: boolean }).encrypted === true) return true;
  if (!proxies?.proxyOf(request)) return false;
  const proto = request.headers["x-forwarded-proto"];
  return typeof proto === "string" && proto.split(",")[0]?.trim().toLowerCase() === "https";
}

export function secureFor(request: FastifyRequest, setting: SecureCookie, proxies?: TrustedProxies): boolean {
  return setting === "auto" ? cameOverHttps(request, proxies) : setting;
}

/**
 * Whether a request authenticated by the session cookie carries its CSRF token: reads (GET, HEAD,
 * OPTIONS) need none; a write needs `X-CSRF-Token` equal to the session's.
 */
export function csrfSatisfied(request: FastifyRequest, expected: string): boolean {
  if (request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS") return true;
  const given = request.headers[CSRF_HEADER];
  if (typeof given !== "string" || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/** 403 for a cookie-carried write without its CSRF token. */
export function sendCsrfFailure(reply: FastifyReply): FastifyReply {
  return sendError(
    reply,
    new GatewayError(
      "csrf_failed",
      `A write signed in by the console's cookie needs the ${CSRF_HEADER} header of its session`,
    ),
  );
}
