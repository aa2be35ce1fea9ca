import { createHash, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SignJWT } from "jose";
import { createSigningKey, type SigningKey } from "./jwks-server.js";

/**
 * An OpenID Connect provider on 127.0.0.1 for the console's sign-in: discovery, a key set, an
 * authorization endpoint that signs in `subject` at once (no login page) and sends the browser
 * back with a code, and a token endpoint that gives the code's tokens only for the PKCE verifier
 * of its challenge (RFC 7636, S256), to the client and redirect URI it was issued to. Every
 * request is recorded.
 */
export interface OidcProvider {
  readonly issuer: string;
  readonly clientId: string;
  /** The principal signed in next (its `sub`, `groups`). */
  signInAs(subject: string, groups?: readonly string[]): void;
  /** Refuses the next authorization with this OAuth error (`access_denied`). */
  refuseNext(error: string): void;
  readonly requests: string[];
  /** Token requests refused, with why. */
  readonly refusals: string[];
  close(): Promise<void>;
}

interface IssuedCode {
  readonly challenge: string;
  readonly redirectUri: string;
  readonly clientId: string;
  readonly subject: string;
  readonly groups: readonly string[];
}

export async function startOidcProvider(options: {
  audience: string;
  clientId?: string;
}): Promise<OidcProvider> {
  const key: SigningKey = await createSigningKey("RS256");
  const clientId = options.clientId ?? "airlock-console";
  const codes = new Map<string, IssuedCode>();
  const requests: string[] = [];
  const refusals: string[] = [];
  let subject = "alice";
  let groups: readonly string[] = [];
  let refusal: string | null = null;
  let origin = "";

  const sign = (claims: Record<string, unknown>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: key.alg, kid: key.kid })
      .setIssuedAt()
      .setExpirationTime("10m")
      .setIssuer(origin)
      .sign(key.privateKey);

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://provider");
    requests.push(`${request.method} ${url.pathname}`);
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (url.pathname === "/.well-known/openid-configuration") {
      return json(200, {
        issuer: origin,
        jwks_uri: `${origin}/keys`,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        code_challenge_methods_supported: ["S256"],
      });
    }
    if (url.pathname === "/keys") return json(200, { keys: [key.publicJwk] });
    if (url.pathname === "/authorize") {
      const redirectUri = url.searchParams.get("redirect_uri") ?? "";
      const back = new URL(redirectUri);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      if (refusal) {
        back.searchParams.set("error", refusal);
        refusal = null;
      } else if (
        url.searchParams.get("client_id") !== clientId ||
        url.searchParams.get("code_challenge_method") !== "S256" ||
        url.searchParams.get("response_type") !== "code"
      ) {
        back.searchParams.set("error", "invalid_request");
      } else {
        const code = randomUUID();
        codes.set(code, {
          challenge: url.searchParams.get("code_challenge") ?? "",
          redirectUri,
          clientId,
          subject,
          groups,
        });
        back.searchParams.set("code", code);
      }
      response.writeHead(302, { location: back.toString() });
      return response.end();
    }
    if (url.pathname === "/token" && request.method === "POST") {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", async () => {
        const form = new URLSearchParams(body);
        const issued = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        const verifier = form.get("code_verifier") ?? "";
        const challenge = createHash("sha256").update(verifier).digest("base64url");
        const problem = !issued
          ? "unknown or used code"
          : issued.challenge !== challenge
            ? "code_verifier does not match the challenge"
            : issued.redirectUri !== form.get("redirect_uri")
              ? "redirect_uri differs"
              : issued.clientId !== form.get("client_id")
                ? "client_id differs"
                : null;
        if (problem || !issued) {
          refusals.push(problem ?? "refused");
          return json(400, { error: "invalid_grant", error_description: problem });
        }
        const accessToken = await sign({ sub: issued.subject, aud: options.audience, groups: issued.groups });
        const idToken = await sign({ sub: issued.subject, aud: clientId });
        return json(200, {
          access_token: accessToken,
          id_token: idToken,
          token_type: "Bearer",
          expires_in: 600,
        });
      });
      return;
    }
    return json(404, { error: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer: origin,
    clientId,
    signInAs(next, nextGroups = []) {
      subject = next;
      groups = nextGroups;
    },
    refuseNext(error) {
      refusal = error;
    },
    requests,
    refusals,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
