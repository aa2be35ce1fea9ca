import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../support/api-keys.js";
import {
  accessibilityViolations,
  BROWSER_TEST_TIMEOUT_MS,
  browserAvailable,
  launchBrowser,
  screenshot,
  signIn,
} from "../support/browser.js";
import { ARITHMETIC, startTestGateway, TEXT, type TestGateway } from "../support/gateway.js";
import { type OidcProvider, startOidcProvider } from "../support/oidc-provider.js";

const CONFIG = `
auth:
  enabled: true
  role_assignments:
    - {principal: ada, role: admin}
    - {principal: vera, role: viewer}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
    description: Arithmetic tools
  text:
    command: [node, ${JSON.stringify(TEXT)}]
`;

describe.runIf(browserAvailable())("the console in a browser", { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  let gw: TestGateway;
  let base: string;
  let browser: Browser;
  const keys = { admin: "", viewer: "" };

  beforeAll(async () => {
    gw = await startTestGateway(CONFIG);
    await gw.app.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
    keys.admin = await createApiKey(gw, "ada");
    keys.viewer = await createApiKey(gw, "vera");
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  // The fleet page; without a location the console opens the first page the caller may use.
  const signedIn = (key: string, width = 1280): Promise<Page> =>
    signIn(browser, base, key, { at: "fleet", width });

  it("serves the console with a strict Content-Security-Policy and no inline script", async () => {
    const answer = await fetch(`${base}/ui/`);
    expect(answer.status).toBe(200);
    const csp = answer.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    const html = await answer.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it("signs in with a key, keeps no credential in storage, and starts a server whose state changes without a reload", async () => {
    const page = await signedIn(keys.admin);
    const storage = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    expect(storage).not.toContain("mcp_");
    expect(await page.evaluate<string>("document.cookie")).toBe("");
    const row = page.locator('tr[data-server="math"]');
    await expect.poll(() => row.locator(".badge").first().textContent()).toBe("cold");
    await page.getByText("live", { exact: true }).waitFor();
    await screenshot(page, "fleet");
    await row.getByRole("button", { name: "Start" }).click();
    await expect.poll(() => row.locator(".badge").first().textContent(), { timeout: 15_000 }).toBe("ready");
    // Started by someone else: the page follows the state stream, no reload.
    await gw.app.inject({
      method: "POST",
      url: "/api/mcp_servers/text/start",
      headers: { "x-api-key": keys.admin },
    });
    const other = page.locator('tr[data-server="text"] .badge').first();
    await expect.poll(() => other.textContent(), { timeout: 15_000 }).toBe("ready");
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.close();
  });

  it("shows a viewer no write controls, and the API refuses the viewer's forged write", async () => {
    const page = await signedIn(keys.viewer);
    await page.locator('tr[data-server="math"]').waitFor();
    expect(await page.getByRole("button", { name: /^(Start|Stop|Block|Delete)$/ }).count()).toBe(0);
    const forged = await page.evaluate(async () => {
      const session = (await (await fetch("/api/ui/session")).json()) as { csrf_token: string };
      const answer = await fetch("/api/mcp_servers/math/stop", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": session.csrf_token },
        body: "{}",
      });
      return answer.status;
    });
    expect(forged).toBe(403);
    await page.close();
  });

  it("works at a phone's width", async () => {
    const page = await signedIn(keys.admin, 390);
    await page.locator('tr[data-server="math"]').waitFor();
    const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, "fleet-phone");
    await page.close();
  });

  it("signs out: the cookie ends and the console asks for a key again", async () => {
    const page = await signedIn(keys.admin);
    const cookies = await page.context().cookies();
    const session = cookies.find((cookie) => cookie.name === "airlock_session");
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe("Strict");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API key").waitFor();
    const replay = await fetch(`${base}/api/mcp_servers/`, {
      headers: { cookie: `airlock_session=${session?.value}` },
    });
    expect(replay.status).toBe(401);
    await page.close();
  });
});

describe.runIf(browserAvailable())(
  "the console's sign-in through an identity provider, in a browser",
  { timeout: BROWSER_TEST_TIMEOUT_MS },
  () => {
    let provider: OidcProvider;
    let gw: TestGateway;
    let base: string;
    let browser: Browser;
    beforeAll(async () => {
      provider = await startOidcProvider({ audience: "airlock" });
      gw = await startTestGateway(`
auth:
  enabled: true
  oidc: {enabled: true, issuer: ${provider.issuer}, audience: airlock, client_id: ${provider.clientId}}
  role_assignments:
    - {principal: alice, role: viewer}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
`);
      base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
      browser = await launchBrowser();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await gw?.close();
      await provider?.close();
    });

    it("follows the provider's redirects and lands signed in as the token's principal", async () => {
      provider.signInAs("alice");
      const page = await browser.newPage();
      await page.goto(`${base}/ui/`);
      await screenshot(page, "sign-in");
      await page.getByRole("link", { name: "Sign in with your identity provider" }).click();
      await page.getByRole("navigation", { name: "console" }).waitFor();
      expect(await page.locator(".who").textContent()).toContain("alice");
      await page.goto(`${base}/ui/#/fleet`);
      await page.locator('tr[data-server="math"]').waitFor();
      await page.close();
    });

    it("shows the provider's refusal in words on the sign-in page", async () => {
      provider.refuseNext("access_denied");
      const page = await browser.newPage();
      await page.goto(`${base}/ui/`);
      await page.getByRole("link", { name: "Sign in with your identity provider" }).click();
      await page.getByRole("alert").waitFor();
      expect(await page.getByRole("alert").textContent()).toContain("refused the sign-in (access_denied)");
      await page.close();
    });
  },
);
