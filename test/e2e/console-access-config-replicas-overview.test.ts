import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApiKey } from "../support/api-keys.js";
import {
  accessibilityViolations,
  browserAvailable,
  launchBrowser,
  screenshot,
  signIn,
} from "../support/browser.js";
import {
  ARITHMETIC,
  type FileGateway,
  startFileGateway,
  startTestGateway,
  TEXT,
  waitFor,
} from "../support/gateway.js";
import { callJson } from "../support/mcp-client.js";

/**
 * The console's access, configuration, replicas and overview pages in a browser, against a gateway
 * started from a configuration file (so reload, backup, export and diff act on a real file), with
 * authentication on, real example servers and real API keys. The metric sampler runs every second
 * so the overview's charts have samples within the test.
 */
const YAML = `
auth:
  enabled: true
  role_assignments:
    - {principal: ada, role: admin}
    - {principal: vera, role: viewer}
config_reload:
  enabled: false
observability:
  metrics_history: {interval_s: 1}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
    description: Arithmetic tools
`;

/** The same file with one more server. */
const WITH_TEXT = `${YAML}  text:
    command: [node, ${JSON.stringify(TEXT)}]
`;

describe.runIf(browserAvailable())("the console's access, configuration, replicas and overview pages", () => {
  vi.setConfig({ testTimeout: 60_000 });
  let gw: FileGateway;
  let base: string;
  let browser: Browser;
  const keys = { admin: "", viewer: "" };

  beforeAll(async () => {
    gw = await startFileGateway(YAML);
    gw.gateway.startBackground();
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

  async function signedIn(key: string, at: string, width = 1280): Promise<Page> {
    const page = await signIn(browser, base, key, { at, width });
    page.on("dialog", (dialog) => void dialog.accept());
    return page;
  }

  const asAdmin = (path: string, init: RequestInit = {}) =>
    fetch(`${base}/api${path}`, { ...init, headers: { "x-api-key": keys.admin, ...init.headers } });

  /** An admin's GET of `/api<path>`, its JSON answer as `T`. */
  async function adminJson<T = unknown>(path: string): Promise<T> {
    return (await asAdmin(path)).json() as Promise<T>;
  }

  async function overflowOf(page: Page): Promise<number> {
    return page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
  }

  it("lets an admin create an API key shown once, which works until the admin revokes it", async () => {
    const page = await signedIn(keys.admin, "access");
    await page.getByLabel("Name", { exact: true }).fill("ci robot");
    await page.getByLabel("Principal", { exact: true }).fill("robot");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByLabel(/New API key/);
    const raw = await shown.inputValue();
    expect(raw).toMatch(/^mcp_[A-Za-z0-9_-]{43}$/);
    await expect
      .poll(() => page.getByRole("alert").first().textContent())
      .toContain("will not be shown again");
    // Kept nowhere but on the screen: not in storage, not in the location.
    const kept = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    expect(kept).not.toContain(raw);
    expect(page.url()).not.toContain(raw);

    // The key authenticates its principal.
    const me = await fetch(`${base}/api/system/me`, { headers: { "x-api-key": raw } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { principal: { id: string } }).principal.id).toBe("robot");

    // After a reload the key is gone from the page; its entry stays in the principal's list.
    await page.reload();
    const row = page.locator("tr[data-key]", { hasText: "ci robot" });
    await row.waitFor();
    expect(await page.getByLabel(/New API key/).count()).toBe(0);
    expect(await page.content()).not.toContain(raw);
    await expect.poll(() => row.locator(".badge").textContent()).toBe("active");
    await screenshot(page, "access");
    expect(await accessibilityViolations(page)).toEqual([]);

    await row.getByRole("button", { name: "Revoke" }).click();
    await page.getByLabel(/Reason for revoking/).fill("rotated");
    await page.getByRole("button", { name: "Revoke key" }).click();
    await expect.poll(() => row.locator(".badge").textContent(), { timeout: 10_000 }).toBe("revoked");
    const refused = await fetch(`${base}/api/system/me`, { headers: { "x-api-key": raw } });
    expect(refused.status).toBe(401);
    const listed = await adminJson<{ keys: unknown[] }>("/auth/keys?principal_id=robot");
    expect(listed.keys).toMatchObject([{ name: "ci robot", revoked: true }]);
    await page.close();
  });

  it("assigns a role to a principal and shows the API's refusal of an unknown scope in words", async () => {
    const page = await signedIn(keys.admin, "access/robot");
    await page.getByLabel("Role to assign").selectOption("auditor");
    await page.getByRole("button", { name: "Assign" }).click();
    await page.locator('tr[data-principal="robot"]', { hasText: "auditor (global)" }).waitFor();
    const roles = await adminJson<{ roles: unknown[] }>("/auth/principals/roles?principal_id=robot");
    expect(roles.roles).toMatchObject([{ role_name: "auditor", scope: "global", source: "api" }]);

    await page.getByLabel(/^Scope \(global/).fill("everywhere");
    await page.getByRole("button", { name: "Assign" }).click();
    await expect
      .poll(() => page.getByRole("alert").allTextContents())
      .toContainEqual(expect.stringContaining("Invalid field 'scope'"));
    await page.close();
  });

  it("sets and deletes a tool access policy and a server's L7 egress policy, as the API then reads them", async () => {
    const page = await signedIn(keys.admin, "access");
    await page.getByLabel("Target id").fill("math");
    await page.getByRole("button", { name: "Show policy" }).first().click();
    await page.getByText("No policy is set through the API for provider math").waitFor();
    await page.getByLabel(/^Denied tools/).fill("multiply\ndivide");
    await page.getByRole("button", { name: "Save policy" }).click();
    await page.getByText("A policy is set for provider math.").waitFor();
    expect(await adminJson("/auth/policies/provider/math")).toMatchObject({
      found: true,
      deny_list: ["multiply", "divide"],
    });
    await page.getByRole("button", { name: "Delete policy" }).click();
    await page.getByText("No policy is set through the API for provider math").waitFor();
    expect(await adminJson("/auth/policies/provider/math")).toMatchObject({ found: false });

    const l7 = page.locator("section", { has: page.getByRole("heading", { name: "L7 egress policies" }) });
    await l7.getByRole("button", { name: "Show policy" }).click();
    await l7.getByText("math has no L7 egress policy").waitFor();
    // Not JSON: refused in words before anything is sent.
    await l7.getByLabel("Policy of math (JSON)").fill("{ mode: Audit");
    await l7.getByRole("button", { name: "Attach policy" }).click();
    await expect
      .poll(() => l7.getByRole("alert").allTextContents())
      .toContainEqual(expect.stringContaining("The policy is not valid JSON"));
    await l7.getByLabel("Policy of math (JSON)").fill('{"tools": {"deny": ["multiply"]}, "mode": "Audit"}');
    await l7.getByRole("button", { name: "Attach policy" }).click();
    await l7.getByRole("button", { name: "Replace policy" }).waitFor();
    const attached = await asAdmin("/mcp_servers/math/l7_policy");
    expect(attached.status).toBe(200);
    expect(await attached.json()).toMatchObject({ mode: "Audit", tools: { deny: ["multiply"] } });
    await l7.getByRole("button", { name: "Remove policy" }).click();
    await l7.getByRole("button", { name: "Attach policy" }).waitFor();
    expect((await asAdmin("/mcp_servers/math/l7_policy")).status).toBe(404);
    await page.close();
  });

  it("hides the access and configuration pages from a viewer, whose forged /auth request the API refuses", async () => {
    const page = await signedIn(keys.viewer, "");
    const nav = page.getByRole("navigation", { name: "console" });
    await nav.getByRole("link", { name: "Overview" }).waitFor();
    expect(await nav.getByRole("link", { name: "Access" }).count()).toBe(0);
    expect(await nav.getByRole("link", { name: "Configuration" }).count()).toBe(0);
    const forged = await page.evaluate(async () => {
      const session = (await (await fetch("/api/ui/session")).json()) as { csrf_token: string };
      const create = await fetch("/api/auth/keys", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": session.csrf_token },
        body: JSON.stringify({ principal_id: "vera", name: "mine" }),
      });
      const list = await fetch("/api/auth/principals");
      return [create.status, list.status];
    });
    expect(forged).toEqual([403, 403]);
    const keysOfVera = await adminJson<{ keys: { name: string }[] }>("/auth/keys?principal_id=vera");
    expect(keysOfVera.keys.map((key) => key.name)).not.toContain("mine");
    await page.close();
  });

  it("says in words that access control is off when authentication is", async () => {
    const open = await startTestGateway(`
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
`);
    try {
      await open.app.listen({ host: "127.0.0.1", port: 0 });
      const port = (open.app.server.address() as AddressInfo).port;
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${port}/ui/#/access`);
      await page.getByRole("heading", { name: "Access control is off" }).waitFor();
      expect(await page.locator("main").textContent()).toContain("answers 503");
      await page.getByRole("heading", { name: "L7 egress policies" }).waitFor();
      const answer = await fetch(`http://127.0.0.1:${port}/api/auth/principals`);
      expect(answer.status).toBe(503);
      await page.close();
    } finally {
      await open.close();
    }
  });

  it("reloads the configuration file after an edit: progress, then what it added", async () => {
    const page = await signedIn(keys.admin, "config");
    await page.locator('[data-diff="none"]').waitFor();
    writeFileSync(gw.path, WITH_TEXT);
    await page.getByRole("button", { name: "Compare again" }).click();
    await page.locator('[data-diff="some"]').waitFor();
    expect(await page.locator(".diff-del").allTextContents()).toContainEqual(
      expect.stringContaining("text:"),
    );

    // The reload's answer is held until the progress has been seen.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/api/config/reload", async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole("button", { name: "Reload from file" }).click();
    await page.getByRole("status").filter({ hasText: "Reloading the configuration file" }).waitFor();
    release();
    await expect
      .poll(() => page.locator('dd[data-reload="added"]').textContent(), { timeout: 15_000 })
      .toBe("text");
    expect(await page.locator('dd[data-reload="unchanged"]').textContent()).toBe("math");
    expect((await asAdmin("/mcp_servers/text")).status).toBe(200);
    await page.locator('[data-diff="none"]').waitFor();
    await screenshot(page, "config");
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "Back up the file" }).click();
    await page.getByText("Backed up to").waitFor();
    expect(existsSync(`${gw.path}.bak1`)).toBe(true);

    await page.getByRole("button", { name: "Export" }).click();
    const link = page.getByRole("link", { name: /^Download airlock-config-/ });
    expect(await link.getAttribute("href")).toMatch(/^blob:/);
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    const exported = readFileSync((await download.path()) as string, "utf8");
    expect(exported).toContain("text:");
    expect(exported).toContain("math:");

    // A file that does not pass: the refusal in the API's words, nothing changed.
    await page.unroute("**/api/config/reload");
    writeFileSync(gw.path, `${WITH_TEXT}\nmcp_servers: [not, a, mapping\n`);
    await page.getByRole("button", { name: "Reload from file" }).click();
    await expect
      .poll(() => page.getByRole("alert").allTextContents(), { timeout: 15_000 })
      .toContainEqual(expect.stringContaining("Configuration reload failed"));
    writeFileSync(gw.path, WITH_TEXT);
    expect((await asAdmin("/config/reload", { method: "POST" })).status).toBe(200);
    await page.close();
  });

  it("draws the last hour's tool calls after a few calls, with the totals now", async () => {
    const client = new Client({ name: "console-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("/mcp", base), {
        requestInit: { headers: { "x-api-key": keys.admin } },
      }),
    );
    try {
      const add = { mcp_server: "math", tool: "add", arguments: { a: 2, b: 3 } };
      const { json } = await callJson(client, "gateway_call", { calls: [add, add, add] });
      expect(json.succeeded).toBe(3);
    } finally {
      await client.close();
    }
    // The sampler writes every second: wait until the calls are in the history.
    await waitFor(async () => {
      const history = await adminJson<{
        series: { metric: string; labels: { mcp_server: string }; points: [number, number][] }[];
      }>("/observability/metrics/history?minutes=60");
      return history.series.some(
        (series) =>
          series.metric === "tool_calls" &&
          series.labels.mcp_server === "math" &&
          series.points.some(([, value]) => value > 0),
      );
    }, 15_000);

    const page = await signedIn(keys.admin, "overview");
    const chart = page.locator("figure.chart", { hasText: "Tool calls per second, by server" });
    await chart.waitFor();
    await expect.poll(() => chart.locator("path.chart-line, circle.chart-dot").count()).toBeGreaterThan(0);
    expect(await chart.locator(".chart-summary").textContent()).toMatch(
      /^math: latest .* calls\/s, peak [1-9]/,
    );
    const latency = page.locator("figure.chart", { hasText: "Latency of math" });
    await latency.waitFor();
    const calls = page.locator(".tile", { hasText: "Calls" }).locator("dd");
    await expect.poll(async () => Number(await calls.textContent())).toBeGreaterThanOrEqual(3);
    // The numbers behind the chart, as a table: built when the details element's toggle event
    // comes, after the click.
    await chart.getByText("Data as a table").click();
    await expect.poll(() => chart.locator("table tbody tr").count()).toBeGreaterThan(0);
    await screenshot(page, "overview");
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.close();
  });

  it("shows the replica that answers, with the instance id the API reports, among the replicas with their coordinates", async () => {
    const system = await adminJson<{ system: { instance: { instance_id: string } } }>("/system/");
    const id = system.system.instance.instance_id;
    expect(id).toBe(gw.gateway.services.instance.instance_id);
    const page = await signedIn(keys.admin, "replicas");
    await expect.poll(() => page.locator('dd[data-fact="instance_id"]').textContent()).toBe(id);
    expect(await page.locator("main").textContent()).toContain("no coordination block");
    // Alone, it is the only replica listed, with the address it listens on and its version.
    const seen = page.locator(`tr[data-replica="${id}"]`);
    await seen.waitFor();
    expect(await page.locator("tr[data-replica]").count()).toBe(1);
    const row = await seen.textContent();
    expect(row).toContain("(this replica)");
    expect(row).toContain(base);
    expect(row).toContain(gw.gateway.services.instance.version);
    await screenshot(page, "replicas");
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.close();
  });

  it("fits a phone's width on each of the four pages", async () => {
    const page = await signedIn(keys.admin, "overview", 390);
    for (const at of ["overview", "access/robot", "config", "replicas"]) {
      await page.goto(`${base}/ui/#/${at}`);
      await page.locator("main section").first().waitFor();
      await page.waitForLoadState("networkidle");
      expect({ at, fits: (await overflowOf(page)) <= 0 }).toEqual({ at, fits: true });
      if (at === "overview") await screenshot(page, "overview-phone");
    }
    await page.close();
  });
});
