import { createHash, randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ConsoleSessions } from "../../../app/auth/console-sessions.js";
import type { OidcSignIn } from "../../../app/ports/oidc-sign-in.js";
import { SignedJson } from "../../mcp/front-door/request-state.js";
import type { HttpAuthentication } from "../plugins/authentication.js";
import {
  cameOverHttps,
  cookieOf,
  cookieText,
  OIDC_CALLBACK_PATH,
  OIDC_LOGIN_PATH,
  type SecureCookie,
  secureFor,
  setSessionCookie,
} from "./session-cookie.js";

/** The cookie that carries a sign-in under way from the login to the callback. */
const FLOW_COOKIE = "airlock_oidc";
/** How long a browser may take at the provider. */
const FLOW_TTL_S = 600;

interface SignInFlow {
  readonly state: string;
  readonly verifier: string;
  readonly redirectUri: string;
  /** Epoch milliseconds. */
  readonly expires: number;
}

export interface OidcRouteOptions {
  signIn: OidcSignIn;
  /** The key every replica shares, for the flow cookie (the callback may reach another replica). */
  obtainKey: () => Promise<Buffer>;
  authentication: HttpAuthentication;
  sessions: ConsoleSessions;
  secureCookie: SecureCookie;
  /** `ui.path`: where the browser goes once signed in (or with the reason it was not). */
  uiPath: string;
}

/**
 * The console's sign-in through the OpenID Connect provider (authorization code with PKCE, a public
 * client): `GET /api/ui/oidc/login` sends the browser to the provider with a fresh state and code
 * challenge, kept in a signed, HttpOnly, short-lived cookie (`SameSite=Lax`: it must come back with
 * the provider's redirect); `GET /api/ui/oidc/callback` checks the state, exchanges the code with
 * the verifier, verifies the token as any bearer token (the same issuers, audience and claim
 * rules), and opens a console session for its principal. Failures go back to the console with
 * the reason in words.
 */
export function consoleOidcRoutes(api: FastifyInstance, options: OidcRouteOptions): void {
  const flows = new SignedJson<SignInFlow>("consoleSignIn", options.obtainKey);
  const back = (reply: FastifyReply, error?: string) =>
    reply.redirect(`${options.uiPath}/${error ? `?sign_in_error=${encodeURIComponent(error)}` : ""}`, 303);

  api.get(OIDC_LOGIN_PATH, async (request, reply) => {
    const verifier = randomBytes(32).toString("base64url");
    const flow: SignInFlow = {
      state: randomBytes(16).toString("base64url"),
      verifier,
      redirectUri: `${originOf(request, options)}/api${OIDC_CALLBACK_PATH}`,
      expires: Date.now() + FLOW_TTL_S * 1000,
    };
    const codeChallenge = createHash("sha256").update(verifier).digest("base64url");
    const target = await options.signIn.authorizationUrl({
      state: flow.state,
      codeChallenge,
      redirectUri: flow.redirectUri,
    });
    if ("reason" in target) return back(reply, `The identity provider cannot be used: ${target.reason}`);
    reply.header("Set-Cookie", flowCookie(await flows.sign(flow), FLOW_TTL_S, secure(request, options)));
    return reply.redirect(target.url, 302);
  });

  api.get(OIDC_CALLBACK_PATH, async (request, reply) => {
    reply.header("Set-Cookie", flowCookie("", 0, secure(request, options)));
    const query = request.query as Record<string, unknown>;
    const token = cookieOf(request, FLOW_COOKIE);
    const flow = token ? await flows.open(token) : { refused: "no sign-in under way" };
    if ("refused" in flow || flow.expires < Date.now() || query.state !== flow.state) {
      return back(reply, "Sign-in failed: it was not begun here, or took too long; try again");
    }
    if (typeof query.error === "string") {
      return back(reply, `The identity provider refused the sign-in (${query.error.slice(0, 100)})`);
    }
    if (typeof query.code !== "string" || query.code === "")
      return back(reply, "Sign-in failed: no code came back");
    const tokens = await options.signIn.exchange({
      code: query.code,
      codeVerifier: flow.verifier,
      redirectUri: flow.redirectUri,
    });
    if (!tokens.ok) return back(reply, `Sign-in failed: ${tokens.reason}`);
    const auth = options.authentication;
    const clientAddress = auth.proxies.clientAddress(request);
    let refusal = "the provider's token was refused";
    for (const bearer of [tokens.accessToken, tokens.idToken]) {
      if (!bearer) continue;
      const outcome = await auth.authenticator.authenticate({
        bearer,
        clientAddress,
        proxyAddress: auth.proxies.proxyOf(request),
      });
      if (!outcome.ok) {
        refusal = outcome.reason ? `the provider's token was refused: ${outcome.reason}` : refusal;
        continue;
      }
      const opened = await options.sessions.open(outcome.principal, null);
      setSessionCookie(reply, opened.token, opened.expiresAt - Date.now() / 1000, secure(request, options));
      return back(reply);
    }
    return back(reply, `Sign-in failed: ${refusal}`);
  });
}

function secure(request: FastifyRequest, options: OidcRouteOptions): boolean {
  return secureFor(request, options.secureCookie, options.authentication.proxies);
}

/** The gateway's origin as the browser reached it: the callback must come back to it. */
function originOf(request: FastifyRequest, options: OidcRouteOptions): string {
  const scheme = cameOverHttps(request, options.authentication.proxies) ? "https" : "http";
  return `${scheme}://${request.headers.host ?? "localhost"}`;
}

function flowCookie(value: string, maxAgeS: number, secure: boolean): string {
  return cookieText(FLOW_COOKIE, value, { path: "/api/ui/oidc", maxAgeS, sameSite: "Lax", secure });
}
