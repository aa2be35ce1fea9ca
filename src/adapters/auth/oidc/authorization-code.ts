import type {
  AuthorizationRequest,
  CodeExchange,
  ExchangeOutcome,
  OidcSignIn,
} from "../../../app/ports/oidc-sign-in.js";
import { readBodyWithin } from "../../net/read-body.js";
import { discoveryUrl } from "./issuer-keys.js";

/** A discovery document or a token answer is a few kilobytes; anything past this is not one. */
const MAX_ANSWER_BYTES = 256 * 1024;

export interface AuthorizationCodeOptions {
  readonly issuer: string;
  readonly clientId: string;
  /** Scopes asked for; `openid` is always among them. */
  readonly scopes: readonly string[];
  /** The https rule of spec 2 §5 for the provider's URLs (http only towards the local machine). */
  readonly acceptUrl: (url: string) => boolean;
  readonly timeoutMs: number;
}

interface Endpoints {
  readonly authorization: string;
  readonly token: string;
}

/**
 * `OidcSignIn` over the provider's discovery document (`<issuer>/.well-known/openid-configuration`,
 * its `authorization_endpoint` and `token_endpoint`), as a public client with PKCE (S256): no
 * client secret is held. A failed discovery is tried again at the next sign-in.
 */
export class AuthorizationCodeSignIn implements OidcSignIn {
  private endpoints: Promise<Endpoints> | null = null;

  constructor(private readonly options: AuthorizationCodeOptions) {}

  async authorizationUrl(request: AuthorizationRequest): Promise<{ url: string } | { reason: string }> {
    const endpoints = await this.discovered();
    if ("reason" in endpoints) return endpoints;
    const url = new URL(endpoints.authorization);
    const scopes = new Set(["openid", ...this.options.scopes]);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", this.options.clientId);
    url.searchParams.set("redirect_uri", request.redirectUri);
    url.searchParams.set("scope", [...scopes].join(" "));
    url.searchParams.set("state", request.state);
    url.searchParams.set("code_challenge", request.codeChallenge);
    url.searchParams.set("code_challenge_method", "S256");
    return { url: url.toString() };
  }

  async exchange(request: CodeExchange): Promise<ExchangeOutcome> {
    const endpoints = await this.discovered();
    if ("reason" in endpoints) return { ok: false, reason: endpoints.reason };
    const body = new URLSearchParams({
      grant_type: "authorization_code",
      code: request.code,
      redirect_uri: request.redirectUri,
      client_id: this.options.clientId,
      code_verifier: request.codeVerifier,
    });
    const answer = await this.fetchJson(endpoints.token, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body,
    });
    if ("reason" in answer) return { ok: false, reason: `token request failed: ${answer.reason}` };
    const { access_token, id_token } = answer.json;
    const accessToken = typeof access_token === "string" && access_token !== "" ? access_token : null;
    const idToken = typeof id_token === "string" && id_token !== "" ? id_token : null;
    if (!accessToken && !idToken) return { ok: false, reason: "the provider answered no token" };
    return { ok: true, accessToken, idToken };
  }

  private async discovered(): Promise<Endpoints | { reason: string }> {
    this.endpoints ??= this.discover();
    try {
      return await this.endpoints;
    } catch (error) {
      this.endpoints = null;
      return { reason: error instanceof Error ? error.message : "discovery failed" };
    }
  }

  private async discover(): Promise<Endpoints> {
    const answer = await this.fetchJson(discoveryUrl(this.options.issuer), {
      method: "GET",
      headers: { accept: "application/json" },
    });
    if ("reason" in answer) throw new Error(`discovery failed: ${answer.reason}`);
    const { authorization_endpoint: authorization, token_endpoint: token } = answer.json;
    if (typeof authorization !== "string" || typeof token !== "string") {
      throw new Error("discovery document names no authorization_endpoint or token_endpoint");
    }
    if (!this.options.acceptUrl(authorization) || !this.options.acceptUrl(token)) {
      throw new Error("the provider's endpoints must be https:// (http:// only on the local machine)");
    }
    return { authorization, token };
  }

  private async fetchJson(
    url: string,
    init: RequestInit,
  ): Promise<{ json: Record<string, unknown> } | { reason: string }> {
    if (!this.options.acceptUrl(url)) return { reason: "URL is not https" };
    let response: Response;
    try {
      // A redirect could leave https; the provider answers where its document says.
      response = await fetch(url, {
        ...init,
        redirect: "manual",
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch {
      return { reason: "the provider could not be reached" };
    }
    const text = await readBodyWithin(response, MAX_ANSWER_BYTES).catch(() => null);
    if (response.status !== 200) return { reason: `HTTP ${response.status}` };
    if (text === null) return { reason: "answer too large" };
    try {
      const json = JSON.parse(text) as unknown;
      if (typeof json !== "object" || json === null || Array.isArray(json))
        return { reason: "answer is not a JSON object" };
      return { json: json as Record<string, unknown> };
    } catch {
      return { reason: "answer is not JSON" };
    }
  }
}
