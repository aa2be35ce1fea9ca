import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser, Locator, Page } from "playwright-core";
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
import { ARITHMETIC, CONTROLLABLE, startTestGateway, type TestGateway } from "../support/gateway.js";
import { callJson } from "../support/mcp-client.js";

const CONFIG = `
auth:
  enabled: true
  rate_limit: {max_attempts: 100000}
  role_assignments:
    - {principal: ada, role: admin}
    - {principal: otto, role: auditor}
    - {principal: pia, role: provider-admin}
    - {principal: vera, role: viewer}
    - {principal: cal, role: developer}
rate_limit: {rps: 1000, burst: 1000}
mcp_servers:
  held:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]
    tools: {approval_list: [echo], approval_timeout_seconds: 120}
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
`;

/** A value the console must never show: the API redacts it before anything stores or publishes it. */
const SECRET = "t0p-s3cret-value-4711";

interface CallResult {
  success: boolean;
  error_type?: string;
  error?: string;
  result?: { content: { text?: string }[] };
}

describe.runIf(browserAvailable())(
  "the approvals and events pages in a browser",
  { timeout: BROWSER_TEST_TIMEOUT_MS },
  () => {
    let gw: TestGateway;
    let base: string;
    let browser: Browser;
    let caller: Client;
    const keys = { admin: "", auditor: "", approver: "", viewer: "", caller: "" };

    beforeAll(async () => {
      gw = await startTestGateway(CONFIG);
      await gw.app.listen({ host: "127.0.0.1", port: 0 });
      base = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
      keys.admin = await createApiKey(gw, "ada");
      keys.auditor = await createApiKey(gw, "otto");
      keys.approver = await createApiKey(gw, "pia");
      keys.viewer = await createApiKey(gw, "vera");
      keys.caller = await createApiKey(gw, "cal", { tenant: "t1" });
      caller = new Client({ name: "console-approvals-tests", version: "1.0.0" });
      await caller.connect(
        new StreamableHTTPClientTransport(new URL("/mcp", base), {
          requestInit: { headers: { "x-api-key": keys.caller } },
        }),
      );
      browser = await launchBrowser();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await caller?.close();
      await gw?.close();
    });

    const signedIn = (key: string, at: string, width = 1280): Promise<Page> =>
      signIn(browser, base, key, { at, width, height: 900 });

    /** Calls `server`'s `tool` through `gateway_call` as the tenant-t1 developer; the call's result. */
    async function call(
      server: string,
      tool: string,
      args: Record<string, unknown>,
      timeout?: number,
    ): Promise<CallResult> {
      const { json } = await callJson(caller, "gateway_call", {
        calls: [{ mcp_server: server, tool, arguments: args }],
        ...(timeout !== undefined && { timeout }),
      });
      return json.results[0] as CallResult;
    }

    /** The pending entry (in the console) of the held call whose arguments carry `message`. */
    async function pendingEntry(page: Page, message: string): Promise<{ entry: Locator; id: string }> {
      const entry = page.locator("li.approval", { hasText: message });
      await entry.waitFor({ timeout: 20_000 });
      return { entry, id: (await entry.getAttribute("data-approval")) as string };
    }

    async function approvalState(id: string): Promise<Record<string, unknown>> {
      const answer = await gw.app.inject({
        method: "GET",
        url: `/api/approvals/${id}`,
        headers: { "x-api-key": keys.admin },
      });
      return answer.json();
    }

    /** Resolves when the page's next WebSocket has been subscribed (a changed filter reconnects). */
    function subscribedAgain(page: Page): Promise<void> {
      return new Promise((resolve) => {
        page.once("websocket", (socket) =>
          socket.on("framereceived", (frame) => {
            if (String(frame.payload).includes('"type":"subscribed"')) resolve();
          }),
        );
      });
    }

    /** Marks the page's window, to check later that it was never reloaded. */
    const mark = (page: Page) => page.evaluate("window.__notReloaded = true");
    const stillSamePage = (page: Page) => page.evaluate<boolean>("window.__notReloaded === true");

    it("shows a held call live, redacted and counting down; an admin approves it and the client gets the tool's result", async () => {
      const page = await signedIn(keys.admin, "approvals");
      await page.getByText("No call is waiting for a decision.").waitFor();
      await page.getByText("live", { exact: true }).waitFor();
      await mark(page);
      const outcome = call("held", "echo", { message: "ship it", api_token: SECRET });
      const { entry, id } = await pendingEntry(page, "ship it");
      expect(await stillSamePage(page)).toBe(true);
      const text = (await entry.textContent()) ?? "";
      expect(text).toContain("echo on held");
      // Caller and tenant, as the approval names them.
      expect((await entry.locator("dd").allTextContents()).slice(0, 2)).toEqual(["cal", "t1"]);
      expect(text).toContain("[REDACTED]");
      expect(await page.content()).not.toContain(SECRET);
      // The time left counts down from the approval's expiry (120 s).
      const left = entry.locator("dd", { hasText: "left" });
      const first = (await left.textContent()) ?? "";
      expect(first).toMatch(/^[12]:\d\d left/);
      await expect.poll(() => left.textContent(), { timeout: 10_000 }).not.toBe(first);
      await screenshot(page, "approvals");
      expect(await accessibilityViolations(page)).toEqual([]);

      await entry.getByRole("button", { name: "Approve" }).click();
      const result = await outcome;
      expect(result.success).toBe(true);
      expect(result.result?.content[0]?.text).toBe("ship it");
      await page.getByRole("status").filter({ hasText: "Approved echo on held." }).waitFor();
      await entry.waitFor({ state: "detached" });
      const decided = page.locator(`tr[data-approval="${id}"]`);
      await decided.waitFor();
      expect(await decided.locator(".badge").textContent()).toBe("approved");
      expect(await decided.locator(".decided-by").textContent()).toBe("ada");
      expect(await approvalState(id)).toMatchObject({ state: "approved", decided_by: "ada" });
      expect(await stillSamePage(page)).toBe(true);
      await page.close();
    }, 60_000);

    it("denies a second held call with the reason given; the client gets the refusal", async () => {
      const page = await signedIn(keys.admin, "approvals");
      await page.getByText("live", { exact: true }).waitFor();
      const outcome = call("held", "echo", { message: "drop the tables" });
      const { entry, id } = await pendingEntry(page, "drop the tables");
      // A denial needs a reason: without one nothing is sent.
      await entry.getByRole("button", { name: "Deny" }).click();
      await entry.getByRole("alert").filter({ hasText: "Write a reason to deny" }).waitFor();
      expect(await approvalState(id)).toMatchObject({ state: "pending" });
      await entry.getByLabel("Reason (required to deny)").fill("not on a Friday");
      await entry.getByRole("button", { name: "Deny" }).click();
      const result = await outcome;
      expect(result).toMatchObject({ success: false, error_type: "ToolAccessDeniedError" });
      expect(result.error).toContain("refused");
      const decided = page.locator(`tr[data-approval="${id}"]`);
      await decided.waitFor();
      expect(await decided.locator(".badge").textContent()).toBe("denied");
      expect(await decided.textContent()).toContain("not on a Friday");
      expect(await approvalState(id)).toMatchObject({
        state: "denied",
        decided_by: "ada",
        reason: "not on a Friday",
      });
      await page.close();
    }, 60_000);

    it("says in words why an approve came too late: the held call's own deadline passed (409)", async () => {
      const page = await signedIn(keys.admin, "approvals");
      await page.getByText("live", { exact: true }).waitFor();
      // The call waits one second; its approval stays pending until the hold's own expiry.
      const result = await call("held", "echo", { message: "too slow" }, 1);
      expect(result).toMatchObject({ success: false, error_type: "ToolAccessDeniedError" });
      const { entry, id } = await pendingEntry(page, "too slow");
      await entry.getByRole("button", { name: "Approve" }).click();
      await page
        .getByRole("alert")
        .filter({ hasText: "Could not approve echo on held: Approval expired" })
        .waitFor();
      expect(await approvalState(id)).toMatchObject({ state: "cancelled", decided_by: "ada" });
      const decided = page.locator(`tr[data-approval="${id}"]`);
      await decided.waitFor();
      expect(await decided.locator(".decided-by").textContent()).toBe("ada (too late)");
      await page.close();
    }, 60_000);

    it("shows an auditor the queue without Approve or Deny, refuses its forged decision, and hides the page from a viewer", async () => {
      const page = await signedIn(keys.auditor, "approvals", 390);
      await page.getByText("live", { exact: true }).waitFor();
      const outcome = call("held", "echo", { message: "look only" });
      const { entry, id } = await pendingEntry(page, "look only");
      expect(await entry.getByRole("button").count()).toBe(0);
      expect(await page.getByRole("button", { name: /^(Approve|Deny)$/ }).count()).toBe(0);
      // At a phone's width nothing overflows the page.
      const overflow = await page.evaluate<number>(
        "document.documentElement.scrollWidth - window.innerWidth",
      );
      expect(overflow).toBeLessThanOrEqual(0);
      const forged = await page.evaluate(async (approvalId) => {
        const session = (await (await fetch("/api/ui/session")).json()) as { csrf_token: string };
        const answer = await fetch(`/api/approvals/${approvalId}/resolve`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-csrf-token": session.csrf_token },
          body: JSON.stringify({ decision: "approve" }),
        });
        return answer.status;
      }, id);
      expect(forged).toBe(403);
      expect(await approvalState(id)).toMatchObject({ state: "pending" });
      // Decided by an admin elsewhere: the auditor's queue drops it without a reload.
      await gw.app.inject({
        method: "POST",
        url: `/api/approvals/${id}/resolve`,
        headers: { "x-api-key": keys.admin, "content-type": "application/json" },
        payload: { decision: "deny", reason: "cleanup" },
      });
      expect((await outcome).success).toBe(false);
      await entry.waitFor({ state: "detached" });
      await page.close();

      const viewer = await signedIn(keys.viewer, "fleet");
      const nav = viewer.getByRole("navigation", { name: "console" });
      await nav.getByRole("link", { name: "Fleet" }).waitFor();
      expect(await nav.getByRole("link", { name: "Approvals" }).count()).toBe(0);
      expect(await nav.getByRole("link", { name: "Events" }).count()).toBe(0);
      await viewer.close();
    }, 60_000);

    it("keeps the queue current for an approver the event stream refuses (no audit:read), by reading it again", async () => {
      const page = await signedIn(keys.approver, "approvals");
      await page.getByText("offline: Access denied: audit:read required").waitFor({ timeout: 15_000 });
      await page.getByText("the list is read again every 10 seconds").waitFor();
      const outcome = call("held", "echo", { message: "polled" });
      const { entry, id } = await pendingEntry(page, "polled");
      await entry.getByRole("button", { name: "Approve" }).click();
      expect((await outcome).success).toBe(true);
      await entry.waitFor({ state: "detached" });
      expect(await page.locator(`tr[data-approval="${id}"] .decided-by`).textContent()).toBe("pia");
      await page.close();
    }, 60_000);

    it("follows the event stream live, narrows it by type, server and principal, and pauses", async () => {
      const page = await signedIn(keys.admin, "events");
      await page.getByText("live", { exact: true }).waitFor();
      await mark(page);
      const events = page.locator("li.event");
      const completed = page.locator('li.event[data-event-type="ToolInvocationCompleted"]');
      const types = async () =>
        new Set(await events.evaluateAll((all) => all.map((e) => e.dataset.eventType)));
      const admin = { "x-api-key": keys.admin, "content-type": "application/json" };
      await gw.app.inject({
        method: "POST",
        url: "/api/mcp_servers/math/start",
        headers: admin,
        payload: {},
      });
      await gw.app.inject({ method: "POST", url: "/api/mcp_servers/math/stop", headers: admin, payload: {} });
      await page.locator('li.event[data-event-type="McpServerStopped"]').first().waitFor({ timeout: 15_000 });
      expect((await call("math", "add", { a: 2, b: 3 })).success).toBe(true);
      await completed.first().waitFor({ timeout: 15_000 });
      const line = (await completed.first().textContent()) ?? "";
      expect(line).toContain("server math");
      expect(line).toContain("by cal");
      // Each event's fields on demand.
      expect(await completed.first().locator("pre").isVisible()).toBe(false);
      await completed.first().getByText("Fields").click();
      expect(await completed.first().locator("pre").textContent()).toContain('"tool_name": "add"');
      // Newest first.
      const order = [...(await events.evaluateAll((all) => all.map((e) => e.dataset.eventType)))];
      expect(order.indexOf("ToolInvocationCompleted")).toBeLessThan(order.indexOf("McpServerStopped"));
      await screenshot(page, "events");
      expect(await accessibilityViolations(page)).toEqual([]);

      // By type (a glob, as the stream's subscribe takes it).
      await page.getByLabel("Event types").fill("ToolInvocationComp*");
      let subscribed = subscribedAgain(page);
      await page.getByRole("button", { name: "Apply" }).click();
      await subscribed;
      expect([...(await types())]).toEqual(["ToolInvocationCompleted"]);
      const before = await completed.count();
      expect((await call("math", "multiply", { a: 6, b: 7 })).success).toBe(true);
      await expect.poll(() => completed.count(), { timeout: 15_000 }).toBe(before + 1);
      expect([...(await types())]).toEqual(["ToolInvocationCompleted"]);

      // By server: no call reached "held" here.
      await page.getByLabel("Server ids").fill("held");
      subscribed = subscribedAgain(page);
      await page.getByRole("button", { name: "Apply" }).click();
      await subscribed;
      await expect.poll(() => events.count()).toBe(0);
      await page.getByLabel("Server ids").fill("math");
      subscribed = subscribedAgain(page);
      await page.getByRole("button", { name: "Apply" }).click();
      await subscribed;
      await expect.poll(() => events.count()).toBe(before + 1);

      // By principal (matched here; the stream has none): nobody called as "vera".
      await page.getByLabel("Principal").fill("vera");
      await page.getByRole("button", { name: "Apply" }).click();
      await expect.poll(() => events.count()).toBe(0);
      await page.getByLabel("Principal").fill("cal");
      await page.getByRole("button", { name: "Apply" }).click();
      await expect.poll(() => events.count()).toBe(before + 1);

      // Paused: new events are kept, not shown, until resumed.
      await page.getByRole("button", { name: "Pause" }).click();
      expect((await call("math", "add", { a: 1, b: 1 })).success).toBe(true);
      await page.getByRole("button", { name: /^Resume \([1-9]\d* new\)$/ }).waitFor({ timeout: 15_000 });
      expect(await events.count()).toBe(before + 1);
      await page.getByRole("button", { name: /^Resume/ }).click();
      await expect.poll(() => events.count()).toBe(before + 2);
      expect(await stillSamePage(page)).toBe(true);
      await page.close();
    }, 60_000);

    it("lays the events page out at a phone's width without overflow", async () => {
      const page = await signedIn(keys.admin, "events", 390);
      await page.getByText("live", { exact: true }).waitFor();
      expect((await call("math", "add", { a: 4, b: 4 })).success).toBe(true);
      const completed = page.locator('li.event[data-event-type="ToolInvocationCompleted"]').first();
      await completed.waitFor({ timeout: 15_000 });
      await completed.getByText("Fields").click();
      const overflow = await page.evaluate<number>(
        "document.documentElement.scrollWidth - window.innerWidth",
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await page.close();
    });
  },
);
