import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
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
import { CONTROLLABLE, startTestGateway, type TestGateway } from "../support/gateway.js";
import type { ToolResult } from "../support/mcp-client.js";

/** A pin no tool's digest can match: the page must mark it. */
const WRONG_PIN = "0".repeat(64);

const controllable = (id: string) => `
  ${id}:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]`;

const CONFIG = `
auth:
  enabled: true
  role_assignments:
    - {principal: ada, role: admin}
    - {principal: vera, role: viewer}
mcp_servers:${controllable("ctl")}
    description: Echo, sleep and stderr on demand
    tool_projection: {digest_enforcement: warn, pins: {echo: "${WRONG_PIN}"}}${controllable("alpha")}${controllable("beta")}
  pool:
    mode: group
    description: Two controllable servers
    strategy: weighted_round_robin
    auto_start: false
    circuit_breaker: {failure_threshold: 1}
    canary: {member: beta, split_pct: 25, pinned_tenants: {acme: alpha}}
    members:
      - {id: alpha, weight: 3}
      - {id: beta, weight: 1, priority: 2}
`;

describe.runIf(browserAvailable())(
  "the console's server and group pages",
  { timeout: BROWSER_TEST_TIMEOUT_MS },
  () => {
    let gw: TestGateway;
    let base: string;
    let browser: Browser;
    const keys = { admin: "", viewer: "" };
    const clients: Client[] = [];

    beforeAll(async () => {
      gw = await startTestGateway(CONFIG);
      await gw.app.listen({ host: "127.0.0.1", port: 0 });
      base = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
      keys.admin = await createApiKey(gw, "ada");
      keys.viewer = await createApiKey(gw, "vera");
      browser = await launchBrowser();
    }, 60_000);
    afterAll(async () => {
      for (const client of clients) await client.close();
      await browser?.close();
      await gw?.close();
    });

    /** Signed in, at `hash` (`#/groups/pool`). */
    const signedIn = (key: string, hash: string, width = 1280): Promise<Page> =>
      signIn(browser, base, key, { at: hash.replace(/^#\//, ""), width, height: 900 });

    /** Calls through the gateway's MCP endpoint as the admin, the way a client would. */
    async function gatewayCall(
      calls: object[],
    ): Promise<{ results: { success: boolean; error_type?: string }[] }> {
      const client = new Client({ name: "console-tests", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL("/mcp", base), {
          requestInit: { headers: { "x-api-key": keys.admin } },
        }),
      );
      clients.push(client);
      const answer = (await client.callTool({ name: "gateway_call", arguments: { calls } })) as ToolResult;
      return JSON.parse(answer.content[0]?.text ?? "{}");
    }

    async function apiGet(path: string): Promise<Record<string, unknown>> {
      const answer = await gw.app.inject({
        method: "GET",
        url: `/api${path}`,
        headers: { "x-api-key": keys.admin },
      });
      return answer.json();
    }

    it("lets an admin open a server from the fleet, start it, and see its tools, digests, pins, log lines arriving live and invocations", async () => {
      const page = await signedIn(keys.admin, "#/fleet");
      await page.locator('tr[data-server="ctl"]').getByRole("link", { name: "ctl" }).click();
      await page.getByRole("heading", { level: 1, name: "ctl" }).waitFor();
      expect(await page.getByRole("link", { name: "Back to the fleet" }).getAttribute("href")).toBe(
        "#/fleet",
      );
      const state = page.locator(".page-head .badge").first();
      await expect.poll(() => state.textContent()).toBe("cold");

      const server = page.locator("section", { has: page.getByRole("heading", { name: "Server" }) });
      await server.getByRole("button", { name: "Start" }).click();
      await expect.poll(() => state.textContent(), { timeout: 15_000 }).toBe("ready");
      expect((await apiGet("/mcp_servers/ctl")).state).toBe("ready");
      await server.getByRole("button", { name: "Stop" }).waitFor();

      // Tools, listed once the server started: each with its digest; the wrong pin is marked.
      const echo = page.locator('li[data-tool="echo"]');
      await echo.waitFor({ timeout: 15_000 });
      const listed = (await apiGet("/mcp_servers/ctl/tools")) as {
        tools: { name: string; digest: string }[];
      };
      const digest = listed.tools.find((tool) => tool.name === "echo")?.digest ?? "";
      expect(digest).toMatch(/^[0-9a-f]{64}$/);
      expect(await echo.locator("code").first().textContent()).toBe(digest);
      expect(await echo.getByText("pin differs").count()).toBe(1);
      expect(await echo.locator("code").nth(1).textContent()).toBe(WRONG_PIN);
      expect(await page.locator('li[data-tool="stderr"]').getByText("pin differs").count()).toBe(0);
      await echo.getByText("Input schema").click();
      await expect.poll(() => echo.locator(".json").textContent()).toContain('"type": "object"');

      // The log stream: the line the server wrote when it started, then one written now, without a reload.
      const logs = page.getByRole("log", { name: "log lines" });
      await logs.getByText("controllable server ready").first().waitFor({ timeout: 15_000 });
      const logSection = page.locator("section", { has: page.getByRole("heading", { name: "Logs" }) });
      await logSection.getByText("live", { exact: true }).waitFor();
      const line = `written while watched ${randomUUID()}`;
      const batch = await gatewayCall([{ mcp_server: "ctl", tool: "stderr", arguments: { line } }]);
      expect(batch.results[0]?.success).toBe(true);
      await logs.getByText(line).waitFor({ timeout: 15_000 });

      // The invocation just made, in the history.
      const history = page.locator("section", { has: page.getByRole("heading", { name: "Invocations" }) });
      await history.getByRole("button", { name: "Refresh" }).click();
      await history.locator("tbody tr", { hasText: "stderr" }).getByText("ok").waitFor({ timeout: 15_000 });

      await screenshot(page, "server");
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.close();
    }, 60_000);

    it("shows a viewer a server's page without lifecycle buttons", async () => {
      const page = await signedIn(keys.viewer, "#/fleet/ctl");
      await page.getByRole("heading", { level: 1, name: "ctl" }).waitFor();
      await page.getByRole("heading", { name: "Health" }).waitFor();
      await page.locator('li[data-tool="echo"]').waitFor();
      expect(await page.getByRole("button", { name: /^(Start|Stop|Block|Delete)$/ }).count()).toBe(0);
      // The state stream needs audit:read, which a viewer lacks: the page says so, and offers a refresh.
      await page.getByText("offline: Access denied: audit:read required").waitFor({ timeout: 15_000 });
      await page.locator(".page-head").getByRole("button", { name: "Refresh" }).waitFor();
      // The log lines need only what the page itself needs: they follow live.
      const logs = page.locator("section", { has: page.getByRole("heading", { name: "Logs" }) });
      await logs.getByText("live", { exact: true }).waitFor({ timeout: 15_000 });
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.close();
    }, 60_000);

    it("says in words when a server does not exist", async () => {
      const page = await signedIn(keys.admin, "#/fleet/ghost");
      await page.getByRole("alert").getByText("McpServer not found: ghost").waitFor();
      await page.close();
    }, 60_000);

    it("lists a configured group with its counts and circuit, and lets an admin rebalance it to close the circuit", async () => {
      // One timed-out call trips the circuit (failure_threshold 1).
      const batch = await gatewayCall([
        { mcp_server: "pool", tool: "sleep", arguments: { ms: 2_500 }, timeout: 1 },
      ]);
      expect(batch.results[0]?.error_type).toBe("ToolTimeoutError");
      expect(await apiGet("/groups/pool")).toMatchObject({ circuit_open: true, state: "degraded" });

      const page = await signedIn(keys.admin, "#/groups");
      const row = page.locator('tr[data-group="pool"]');
      await row.waitFor();
      expect(await row.locator(".badge").first().textContent()).toBe("degraded");
      expect(await row.textContent()).toContain("weighted_round_robin");
      expect(await row.textContent()).toContain("2 total");
      expect(await row.getByText("open", { exact: true }).count()).toBe(1);
      await page.getByText("live", { exact: true }).waitFor();
      await screenshot(page, "groups");
      expect(await accessibilityViolations(page)).toEqual([]);

      await row.getByRole("link", { name: "pool" }).click();
      await page.getByRole("heading", { level: 1, name: "pool" }).waitFor();
      const alpha = page.locator('tr[data-member="alpha"]');
      const beta = page.locator('tr[data-member="beta"]');
      await alpha.waitFor();
      expect((await alpha.locator("td").allTextContents()).slice(2, 5)).toEqual(["yes", "3", "1"]);
      expect((await beta.locator("td").allTextContents()).slice(2, 5)).toEqual(["yes", "1", "2"]);
      expect(await alpha.getByRole("link", { name: "alpha" }).getAttribute("href")).toBe("#/fleet/alpha");

      const circuit = page.locator(".facts div", { hasText: "Circuit breaker" }).locator(".badge");
      expect(await circuit.textContent()).toBe("open");
      // The threshold and run, and the canary, from the group's settings beside its object.
      const run = page.locator(".facts div", { hasText: "Failure run" });
      await run.waitFor();
      expect(await run.textContent()).toContain("1 of 1 failed calls in a row open the circuit");
      const canary = page.locator("section", { has: page.getByRole("heading", { name: "Canary" }) });
      expect(await canary.locator(".facts div", { hasText: "Canary member" }).textContent()).toContain(
        "beta",
      );
      expect(await canary.textContent()).toContain("25 % of calls to the canary");
      expect(await canary.locator('tr[data-pin="acme"] td').allTextContents()).toEqual(["acme", "alpha"]);
      await page.getByRole("button", { name: "Rebalance" }).click();
      await page
        .getByRole("status")
        .getByText(/^Rebalanced/)
        .waitFor({ timeout: 15_000 });
      await expect.poll(() => circuit.textContent()).toBe("closed");
      expect((await apiGet("/groups/pool")).circuit_open).toBe(false);
      await screenshot(page, "group");
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.close();
    }, 60_000);

    it("shows a viewer a group without the Rebalance button, and the API refuses the viewer's forged rebalance", async () => {
      const page = await signedIn(keys.viewer, "#/groups/pool");
      await page.locator('tr[data-member="alpha"]').waitFor();
      expect(await page.getByRole("button", { name: "Rebalance" }).count()).toBe(0);
      const forged = await page.evaluate(async () => {
        const session = (await (await fetch("/api/ui/session")).json()) as { csrf_token: string };
        const answer = await fetch("/api/groups/pool/rebalance", {
          method: "POST",
          headers: { "content-type": "application/json", "x-csrf-token": session.csrf_token },
          body: "{}",
        });
        return answer.status;
      });
      expect(forged).toBe(403);
      await page.close();
    }, 60_000);

    it("says in words when a group does not exist", async () => {
      const page = await signedIn(keys.admin, "#/groups/ghost");
      await page.getByRole("alert").getByText("Group not found: ghost").waitFor();
      await page.close();
    }, 60_000);

    it("fits both pages at a phone's width", async () => {
      for (const hash of ["#/fleet/ctl", "#/groups/pool", "#/groups"]) {
        const page = await signedIn(keys.admin, hash, 390);
        await page
          .getByRole("heading", { name: /ctl|pool|Groups/ })
          .first()
          .waitFor();
        await page.locator("li[data-tool], tr[data-member], tr[data-group]").first().waitFor();
        const overflow = await page.evaluate<number>(
          "document.documentElement.scrollWidth - window.innerWidth",
        );
        expect(overflow, hash).toBeLessThanOrEqual(0);
        if (hash === "#/fleet/ctl") await screenshot(page, "server-phone");
        await page.close();
      }
    }, 60_000);
  },
);
