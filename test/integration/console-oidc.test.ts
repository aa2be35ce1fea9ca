import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.js";
import { type OidcProvider, startOidcProvider } from "../support/oidc-provider.js";

const AUDIENCE = "airlock";

/** The `name=value` of a cookie an answer sets. */
function setCookie(response: Response, name: string): string | undefined {
  return response.headers
    .getSetCookie()
    .map((text) => text.split(";")[0] as string)
    .find((pair) => pair.startsWith(`${name}=`));
}

describe("the console's sign-in through the OpenID Connect provider", () => {
  let provider: OidcProvider;
  let gw: TestGateway;
  let base: string;
  beforeAll(async () => {
    provider = await startOidcProvider({ audience: AUDIENCE });
    gw = await startTestGateway(`
auth:
  enabled: true
  oidc:
    enabled: true
    issuer: ${provider.issuer}
    audience: ${AUDIENCE}
    client_id: ${provider.clientId}
  role_assignments:
    - {principal: alice, role: viewer}
mcp_servers: {}
`);
    base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await gw?.close();
    await provider?.close();
  });

  /** The gateway's login: the provider's URL it sends the browser to, and the flow cookie. */
  async function begin(): Promise<{ authorize: URL; flow: string }> {
    const login = await fetch(`${base}/api/ui/oidc/login`, { redirect: "manual" });
    expect(login.status).toBe(302);
    const flow = setCookie(login, "airlock_oidc");
    expect(flow).toBeDefined();
    return { authorize: new URL(login.headers.get("location") ?? ""), flow: flow as string };
  }

  /** The provider's answer: the callback URL it sends the browser back to. */
  async function authorize(url: URL): Promise<URL> {
    const answer = await fetch(url, { redirect: "manual" });
    expect(answer.status).toBe(302);
    return new URL(answer.headers.get("location") ?? "");
  }

  it("offers the provider on the sign-in page", async () => {
    const methods = await (await fetch(`${base}/api/ui/sign-in`)).json();
    expect(methods).toEqual({ auth_enabled: true, api_key: true, oidc: true });
  });

  it("sends the browser with a PKCE challenge, and opens a console session for the token's principal", async () => {
    provider.signInAs("alice");
    const { authorize: url, flow } = await begin();
    expect(url.origin).toBe(provider.issuer);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("redirect_uri")).toBe(`${base}/api/ui/oidc/callback`);
    const callback = await authorize(url);
    const done = await fetch(callback, { redirect: "manual", headers: { cookie: flow } });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/ui/");
    const session = setCookie(done, "airlock_session");
    expect(session).toBeDefined();
    expect(setCookie(done, "airlock_oidc")).toBe("airlock_oidc=");
    const who = await fetch(`${base}/api/ui/session`, { headers: { cookie: session as string } });
    expect(who.status).toBe(200);
    const body = (await who.json()) as { principal: unknown; allowed_routes: string[] };
    expect(body.principal).toEqual({ id: "alice", type: "jwt", tenant_id: null });
    expect(body.allowed_routes).toContain("GET /mcp_servers/");
    expect(body.allowed_routes).not.toContain("POST /mcp_servers/:id/start");
  });

  it("exchanges a code only with the verifier of the sign-in that asked for it", async () => {
    const first = await begin();
    const second = await begin();
    const firstCallback = await authorize(first.authorize);
    // The first sign-in's code, brought back under the second's state and cookie.
    const swapped = new URL(firstCallback);
    swapped.searchParams.set("state", second.authorize.searchParams.get("state") ?? "");
    const answer = await fetch(swapped, { redirect: "manual", headers: { cookie: second.flow } });
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toMatch(/^\/ui\/\?sign_in_error=/);
    expect(setCookie(answer, "airlock_session")).toBeUndefined();
    expect(provider.refusals.at(-1)).toBe("code_verifier does not match the challenge");
  });

  it("refuses a callback without its flow cookie, or whose state differs", async () => {
    const { authorize: url, flow } = await begin();
    const callback = await authorize(url);
    const without = await fetch(callback, { redirect: "manual" });
    expect(decodeURIComponent(without.headers.get("location") ?? "")).toContain("it was not begun here");
    const forged = new URL(callback);
    forged.searchParams.set("state", "forged");
    const mismatch = await fetch(forged, { redirect: "manual", headers: { cookie: flow } });
    expect(setCookie(mismatch, "airlock_session")).toBeUndefined();
    expect(decodeURIComponent(mismatch.headers.get("location") ?? "")).toContain("Sign-in failed");
  });

  it("says in words that the provider refused, and opens nothing", async () => {
    provider.refuseNext("access_denied");
    const { authorize: url, flow } = await begin();
    const answer = await fetch(await authorize(url), { redirect: "manual", headers: { cookie: flow } });
    expect(decodeURIComponent(answer.headers.get("location") ?? "")).toContain(
      "The identity provider refused the sign-in (access_denied)",
    );
    expect(setCookie(answer, "airlock_session")).toBeUndefined();
  });

  it("refuses a token the gateway would refuse as a bearer (another audience)", async () => {
    const strict = await startTestGateway(`
auth:
  enabled: true
  oidc:
    enabled: true
    issuer: ${provider.issuer}
    audience: somebody-else
    client_id: ${provider.clientId}
mcp_servers: {}
`);
    try {
      const other = await strict.app.listen({ host: "127.0.0.1", port: 0 });
      const login = await fetch(`${other}/api/ui/oidc/login`, { redirect: "manual" });
      const flow = setCookie(login, "airlock_oidc") as string;
      const callback = await authorize(new URL(login.headers.get("location") ?? ""));
      const answer = await fetch(callback, { redirect: "manual", headers: { cookie: flow } });
      expect(setCookie(answer, "airlock_session")).toBeUndefined();
      expect(decodeURIComponent(answer.headers.get("location") ?? "")).toContain("token was refused");
    } finally {
      await strict.close();
    }
  });
});

describe("the console without a provider to sign in through", () => {
  it("offers API keys only, and has no provider routes", async () => {
    const gw = await startTestGateway(`auth: {enabled: true}\nmcp_servers: {}\n`);
    try {
      const methods = (await gw.app.inject({ method: "GET", url: "/api/ui/sign-in" })).json();
      expect(methods).toEqual({ auth_enabled: true, api_key: true, oidc: false });
      expect((await gw.app.inject({ method: "GET", url: "/api/ui/oidc/login" })).statusCode).toBe(404);
    } finally {
      await gw.close();
    }
  });
});
