import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../support/api-keys.js";
import {
  accessibilityViolations,
  browserAvailable,
  launchBrowser,
  screenshot,
  signIn,
} from "../support/browser.js";
import { ARITHMETIC, startTestGateway, type TestGateway } from "../support/gateway.js";

const PICTURE = resolve("test/fixtures/servers/picture.mjs");

const config = (servers: string) => `
rate_limit: {rps: 1000, burst: 1000}
auth:
  enabled: true
  role_assignments:
    - {principal: ada, role: admin}
    - {principal: vera, role: viewer}
discovery:
  enabled: true
  auto_register: false
  # Cycles are asked for by the tests (scans); the periodic one never fires here.
  refresh_interval_s: 3600
  sources:
    - {type: filesystem, mode: additive, path: ${JSON.stringify(servers)}}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
    description: Arithmetic tools
  picture:
    command: [node, ${JSON.stringify(PICTURE)}]
  gated:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
    tools: {approval_list: [multiply]}
`;

describe.runIf(browserAvailable())(
  "the console's playground, discovery and catalog pages",
  { timeout: 90_000 },
  () => {
    let gw: TestGateway;
    let base: string;
    let browser: Browser;
    let servers: string;
    const keys = { admin: "", viewer: "" };

    beforeAll(async () => {
      servers = mkdtempSync(join(tmpdir(), "airlock-console-discovery-"));
      writeFileSync(
        join(servers, "weather.yaml"),
        `mcp_servers:\n  weather:\n    command: [node, ${JSON.stringify(ARITHMETIC)}]\n`,
      );
      gw = await startTestGateway(config(servers));
      await gw.app.listen({ host: "127.0.0.1", port: 0 });
      base = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
      keys.admin = await createApiKey(gw, "ada");
      keys.viewer = await createApiKey(gw, "vera");
      browser = await launchBrowser();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await gw?.close();
      rmSync(servers, { recursive: true, force: true });
    });

    const signedIn = (key: string, at: string, width = 1280): Promise<Page> =>
      signIn(browser, base, key, { at, width });

    async function rest(method: string, url: string, payload?: unknown) {
      const answer = await gw.app.inject({
        method: method as "GET",
        url: `/api${url}`,
        headers: { "x-api-key": keys.admin },
        ...(payload !== undefined && { payload: payload as object }),
      });
      return { status: answer.statusCode, body: answer.json() };
    }

    async function overflow(page: Page): Promise<number> {
      return page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
    }

    describe("playground", () => {
      it("calls add of the arithmetic server through a form made from its schema, and shows the result", async () => {
        const page = await signedIn(keys.admin, "playground");
        await page.getByLabel("Server or group").selectOption("math");
        // Never started: its tools are not known until it starts.
        await page.getByText("No tool of math is known").waitFor();
        await page.getByRole("button", { name: "Start math" }).click();
        await page.getByLabel("Tool", { exact: true }).selectOption("add");
        await page.getByRole("textbox", { name: "a (required)" }).fill("2");
        // A required field left empty stops the call before anything is sent.
        await page.getByRole("button", { name: "Call", exact: true }).click();
        await page.getByText("b is required").waitFor();
        expect(await page.locator(".tool-result").count()).toBe(0);
        await page.getByRole("textbox", { name: "b (required)" }).fill("3.5");
        await page.getByRole("button", { name: "Call", exact: true }).click();
        const result = page.locator('.tool-result[data-outcome="ok"]');
        await result.waitFor({ timeout: 15_000 });
        expect(await result.locator(".tool-text").textContent()).toBe("5.5");
        expect(await result.locator(".json").textContent()).toContain('"result": 5.5');
        // The call went through the gateway: it is in the server's tool history.
        const history = await rest("GET", "/mcp_servers/math/tools/history");
        expect(JSON.stringify(history.body.history)).toContain('"tool_name":"add"');
        // The call ran as the signed-in principal: no key is asked for, and none is kept anywhere.
        expect(await page.getByLabel("API key for calls").count()).toBe(0);
        const storage = await page.evaluate(
          () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
        );
        expect(storage).not.toContain("mcp_");
        expect(JSON.stringify(history.body.history)).toContain('"requested_by":"ada"');
        expect(await accessibilityViolations(page)).toEqual([]);
        await page.close();
      });

      it("renders an image a tool returns, from the fields of an enum, an integer and a boolean", async () => {
        const page = await signedIn(keys.admin, "playground/picture");
        await page.getByRole("button", { name: "Start picture" }).click();
        await page.getByLabel("Tool", { exact: true }).selectOption("square");
        await page.getByRole("combobox", { name: "color (required)" }).selectOption("green");
        await page.getByRole("textbox", { name: "size" }).fill("48");
        await page.getByRole("combobox", { name: "border" }).selectOption("true");
        await page.getByRole("button", { name: "Call", exact: true }).click();
        const image = page.getByRole("img", { name: "Tool result 1 (image/png)" });
        await image.waitFor({ timeout: 15_000 });
        await expect
          .poll(() =>
            image.evaluate((element) => (element as unknown as { naturalWidth: number }).naturalWidth),
          )
          .toBe(48);
        expect(await image.getAttribute("src")).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
        await page.getByText("a green square of 48 pixels").waitFor();
        await screenshot(page, "playground");
        expect(await accessibilityViolations(page)).toEqual([]);
        await page.close();
      });

      it("makes fields of nested objects and lists, and a JSON field of what a form cannot express", async () => {
        await rest("POST", "/mcp_servers/picture/start");
        const page = await signedIn(keys.admin, "playground/picture/frame");
        await page.getByRole("group", { name: "size (required)" }).waitFor();
        await page.getByRole("textbox", { name: "width (required)" }).fill("3");
        await page.getByRole("textbox", { name: "height (required)" }).fill("4.5");
        await page.getByRole("button", { name: "Add to labels" }).click();
        await page.getByRole("button", { name: "Add to labels" }).click();
        await page.getByRole("textbox", { name: "labels 1" }).fill("north");
        await page.getByRole("textbox", { name: "labels 2" }).fill("south");
        await page.getByRole("textbox", { name: "fill (JSON)" }).fill('"red');
        await page.getByRole("button", { name: "Call", exact: true }).click();
        await page.getByText("height must be a whole number").waitFor();
        await page.getByText(/^fill is not valid JSON/).waitFor();
        await page.getByRole("textbox", { name: "height (required)" }).fill("4");
        await page.getByRole("textbox", { name: "fill (JSON)" }).fill('"red"');
        await page.getByRole("button", { name: "Call", exact: true }).click();
        const result = page.locator('.tool-result[data-outcome="ok"]');
        await result.waitFor({ timeout: 15_000 });
        expect(JSON.parse((await result.locator(".json").textContent()) ?? "")).toEqual({
          area: 12,
          labels: ["north", "south"],
          fill: "red",
        });
        expect(await accessibilityViolations(page)).toEqual([]);
        await page.close();
      });

      it("shows the API's error for a bad input, a tool's error result as an error, and an unknown tool", async () => {
        await rest("POST", "/mcp_servers/math/start");
        const page = await signedIn(keys.admin, "playground/math/add");
        await page.getByLabel("Edit the arguments as JSON").check();
        await page.getByLabel("Arguments (JSON object)").fill('{"a": "two", "b": 2}');
        await page.getByRole("button", { name: "Call", exact: true }).click();
        const failed = page.locator('.tool-result[data-outcome="error"] [role="alert"]');
        await failed.waitFor({ timeout: 15_000 });
        expect(await failed.textContent()).toContain(
          "Invalid arguments for tool add: a: Invalid input: expected number, received string",
        );

        await page.goto(`${base}/ui/#/playground/math/divide`);
        await page.getByRole("textbox", { name: "a (required)" }).fill("1");
        await page.getByRole("textbox", { name: "b (required)" }).fill("0");
        await page.getByRole("button", { name: "Call", exact: true }).click();
        await failed.waitFor({ timeout: 15_000 });
        expect(await failed.textContent()).toBe("Cannot divide by zero: b must not be 0.");

        // A refusal by the gateway is shown with its type, in the API's words.
        await page.goto(`${base}/ui/#/playground/math/nothing_here`);
        await page.getByText("math offers no tool nothing_here to you.").waitFor();
        await page.close();
      });

      it("says that a call is held for approval, keeps waiting, and shows the result once approved", async () => {
        await rest("POST", "/mcp_servers/gated/start");
        const page = await signedIn(keys.admin, "playground/gated/multiply");
        await page.getByRole("textbox", { name: "a (required)" }).fill("6");
        await page.getByRole("textbox", { name: "b (required)" }).fill("7");
        await page.getByRole("button", { name: "Call", exact: true }).click();
        await page.getByText(/Held for approval: waiting for a decision/).waitFor({ timeout: 15_000 });
        const pending = await rest("GET", "/approvals");
        const approval = (pending.body as { approval_id: string; tool_name: string }[]).find(
          (entry) => entry.tool_name === "multiply",
        );
        expect(approval).toBeDefined();
        const decided = await rest("POST", `/approvals/${approval?.approval_id}/resolve`, {
          decision: "approve",
        });
        expect(decided.status).toBe(200);
        const result = page.locator('.tool-result[data-outcome="ok"] .tool-text');
        await result.waitFor({ timeout: 15_000 });
        expect(await result.textContent()).toBe("42");
        await page.close();
      });

      it("shows a viewer the tools without a call form, and refuses a forged call", async () => {
        await rest("POST", "/mcp_servers/math/start");
        const page = await signedIn(keys.viewer, "playground/math/add");
        await page.getByText("calling needs the tool:invoke permission").waitFor();
        expect(await page.getByRole("button", { name: "Call", exact: true }).count()).toBe(0);
        // The API refuses the call all the same, sent with the session's own CSRF token.
        const forged = await page.evaluate(async () => {
          const session = (await (await fetch("/api/ui/session")).json()) as { csrf_token: string };
          const answer = await fetch("/api/tools/call", {
            method: "POST",
            headers: { "content-type": "application/json", "x-csrf-token": session.csrf_token },
            body: JSON.stringify({ mcp_server: "math", tool: "add", arguments: { a: 1, b: 1 } }),
          });
          return { status: answer.status, body: await answer.json() };
        });
        expect(forged).toMatchObject({ status: 403, body: { error: { code: "AccessDeniedError" } } });
        await page.close();
      });
    });

    describe("discovery", () => {
      it("lists the filesystem source and a pending server, which an admin approves once quarantined", async () => {
        const scanned = await rest("POST", "/discovery/sources/filesystem/scan");
        expect(scanned.body).toMatchObject({ scan_triggered: true, mcp_servers_found: 1 });
        const page = await signedIn(keys.admin, "discovery");
        const source = page.locator('tr[data-source="filesystem"]');
        await source.waitFor();
        expect(await source.textContent()).toContain("additive");
        await page.locator('tr[data-pending="weather"]').waitFor();
        expect(await page.locator('tr[data-pending="weather"]').textContent()).toContain("weather.yaml");
        // Seen again unchanged, it waits in quarantine for a decision.
        await source.getByRole("button", { name: "Scan now" }).click();
        const held = page.locator('tr[data-quarantined="weather"]');
        await held.waitFor({ timeout: 15_000 });
        expect(await held.textContent()).toContain("awaiting_approval");
        await screenshot(page, "discovery");
        expect(await accessibilityViolations(page)).toEqual([]);
        await held.getByRole("button", { name: "Approve" }).click();
        await held.waitFor({ state: "detached", timeout: 15_000 });
        const registered = await rest("GET", "/mcp_servers/weather");
        expect(registered.status).toBe(200);
        await page.close();
      });

      it("shows a viewer no scan, approve or reject, and an approval that fails in the API's words", async () => {
        writeFileSync(
          join(servers, "forecast.yaml"),
          `mcp_servers:\n  forecast:\n    command: [node, ${JSON.stringify(ARITHMETIC)}]\n`,
        );
        await rest("POST", "/discovery/sources/filesystem/scan");
        await rest("POST", "/discovery/sources/filesystem/scan");
        const viewer = await signedIn(keys.viewer, "discovery");
        await viewer.locator('tr[data-quarantined="forecast"]').waitFor();
        expect(
          await viewer.getByRole("button", { name: /^(Scan now|Disable|Approve|Reject)$/ }).count(),
        ).toBe(0);
        await viewer.close();

        const page = await signedIn(keys.admin, "discovery");
        const held = page.locator('tr[data-quarantined="forecast"]');
        await held.waitFor();
        // Its name taken meanwhile by a server registered through REST: approving it is refused, in words.
        const taken = await rest("POST", "/mcp_servers/", {
          mcp_server_id: "forecast",
          mode: "subprocess",
          command: ["node", ARITHMETIC],
        });
        expect(taken.status).toBe(201);
        await held.getByRole("button", { name: "Approve" }).click();
        await held.getByRole("alert").waitFor();
        expect(await held.getByRole("alert").textContent()).toContain("forecast");
        // Rejected elsewhere: the page follows the discovery events and drops it without a reload.
        await rest("POST", "/discovery/reject/forecast");
        await held.waitFor({ state: "detached", timeout: 15_000 });
        await page.close();
      });
    });

    describe("catalog", () => {
      it("filters by search and tags, pages, creates an entry, and deploys it into the fleet", async () => {
        for (let n = 1; n <= 21; n++) {
          const created = await rest("POST", "/catalog/", {
            name: `filler-${String(n).padStart(2, "0")}`,
            description: "A placeholder",
            tags: ["filler"],
          });
          expect(created.status).toBe(201);
        }
        await rest("POST", "/catalog/", {
          name: "Text tools",
          description: "Words and letters",
          tags: ["text", "example"],
        });
        const page = await signedIn(keys.admin, "catalog");
        await page.getByText("1–20 of 22").waitFor();
        await page.getByRole("button", { name: "Next" }).click();
        await page.getByText("21–22 of 22").waitFor();

        // Create: the form's fields, then the entry's own page.
        await page.getByLabel("Name", { exact: true }).fill("Arithmetic");
        await page.getByLabel("Description", { exact: true }).fill("Adds, subtracts, multiplies and divides");
        await page.getByLabel("Mode").selectOption("subprocess");
        await page.getByLabel(/^Command/).fill(`node\n${ARITHMETIC}`);
        await page.getByLabel("Tags (comma-separated)").fill("math, example");
        await page.getByRole("button", { name: "Create entry" }).click();
        await page.getByRole("heading", { name: "Arithmetic" }).waitFor();
        await page.getByRole("link", { name: "← Server catalog" }).click();

        await page.getByLabel("Search names and descriptions").fill("MULTIPLIES");
        await page.getByRole("button", { name: "Filter", exact: true }).click();
        await expect.poll(() => page.locator("tr[data-entry]").count()).toBe(1);
        expect(await page.locator('tr[data-entry="Arithmetic"]').count()).toBe(1);
        await page.getByLabel("Search names and descriptions").fill("");
        await page.getByLabel(/^Tags \(all/).fill("example");
        await page.getByRole("button", { name: "Filter", exact: true }).click();
        await expect.poll(() => page.locator("tr[data-entry]").count()).toBe(2);
        await page.getByLabel(/^Tags \(all/).fill("example, text");
        await page.getByRole("button", { name: "Filter", exact: true }).click();
        await expect.poll(() => page.locator("tr[data-entry]").count()).toBe(1);
        expect(await page.locator('tr[data-entry="Text tools"]').count()).toBe(1);
        await page.getByLabel(/^Tags \(all/).fill("example");
        await page.getByRole("button", { name: "Filter", exact: true }).click();
        await expect.poll(() => page.locator("tr[data-entry]").count()).toBe(2);
        await screenshot(page, "catalog");
        expect(await accessibilityViolations(page)).toEqual([]);

        // A second entry of a taken name: the API's refusal, in its words.
        await page.getByLabel("Name", { exact: true }).fill("Arithmetic");
        await page.getByLabel("Description", { exact: true }).fill("Again");
        await page.getByRole("button", { name: "Create entry" }).click();
        await page.getByText("Catalog entry already exists: Arithmetic").waitFor();

        await page.getByRole("link", { name: "Arithmetic" }).click();
        await page.getByLabel("Server id").fill("calc");
        await page.getByRole("button", { name: "Deploy" }).click();
        const deployed = page.getByRole("status").filter({ hasText: "Deployed as" });
        await deployed.waitFor({ timeout: 20_000 });
        expect(await deployed.textContent()).toBe("Deployed as calc: ready, 5 tools.");
        const server = await rest("GET", "/mcp_servers/calc");
        expect(server.body).toMatchObject({ mcp_server_id: "calc", state: "ready" });
        await deployed.getByRole("link", { name: "calc" }).click();
        await page.getByRole("heading", { name: "calc", level: 1 }).waitFor();
        expect(page.url()).toContain("#/fleet/calc");
        await page.close();
      });

      it("deletes an entry for an admin, and shows a viewer no create, deploy or delete", async () => {
        const created = await rest("POST", "/catalog/", { name: "Short-lived", description: "Deleted soon" });
        const entry = created.body as { entry_id: string };

        const viewer = await signedIn(keys.viewer, `catalog/${entry.entry_id}`);
        await viewer.getByRole("heading", { name: "Short-lived" }).waitFor();
        expect(await viewer.getByRole("button", { name: /^(Delete|Deploy)$/ }).count()).toBe(0);
        await viewer.goto(`${base}/ui/#/catalog`);
        await viewer.locator("tr[data-entry]").first().waitFor();
        expect(await viewer.getByRole("button", { name: "Create entry" }).count()).toBe(0);
        await viewer.close();

        const page = await signedIn(keys.admin, `catalog/${entry.entry_id}`);
        await page.getByRole("heading", { name: "Short-lived" }).waitFor();
        page.once("dialog", (dialog) => void dialog.accept());
        await page.getByRole("button", { name: "Delete" }).click();
        await page.getByLabel("Search names and descriptions").waitFor();
        expect((await rest("GET", `/catalog/${entry.entry_id}`)).status).toBe(404);
        // An entry without a mode cannot be deployed: the API says so.
        const lone = await rest("POST", "/catalog/", { name: "No mode", description: "Nothing to run" });
        await page.goto(`${base}/ui/#/catalog/${(lone.body as { entry_id: string }).entry_id}`);
        await page.getByRole("button", { name: "Deploy" }).click();
        await page.getByRole("alert").filter({ hasText: "required field(s) absent: mode" }).waitFor();
        await page.close();
      });
    });

    it("fits a phone's width on all three pages", async () => {
      for (const at of ["playground/math/add", "discovery", "catalog"]) {
        const page = await signedIn(keys.admin, at, 390);
        await page.locator("main h2").first().waitFor();
        await page.waitForLoadState("networkidle");
        expect(Math.max(0, await overflow(page)), at).toBe(0);
        await screenshot(page, `${at.split("/")[0]}-phone`);
        await page.close();
      }
    });
  },
);

describe.runIf(browserAvailable())(
  "the playground on the front door, with authentication off",
  { timeout: 90_000 },
  () => {
    let gw: TestGateway;
    let base: string;
    let browser: Browser;

    beforeAll(async () => {
      gw = await startTestGateway(`
tool_access: {mode: front_door}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
`);
      await gw.app.listen({ host: "127.0.0.1", port: 0 });
      base = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
      browser = await launchBrowser();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await gw?.close();
    });

    it("asks for no key, and calls the tool through the REST route on the front door too", async () => {
      expect((await gw.app.inject({ method: "POST", url: "/api/mcp_servers/math/start" })).statusCode).toBe(
        200,
      );
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(`${base}/ui/#/playground/math/add`);
      await page.getByRole("textbox", { name: "a (required)" }).fill("20");
      expect(await page.getByLabel("API key for calls").count()).toBe(0);
      await page.getByRole("textbox", { name: "b (required)" }).fill("22");
      await page.getByRole("button", { name: "Call", exact: true }).click();
      const result = page.locator('.tool-result[data-outcome="ok"]');
      await result.waitFor({ timeout: 15_000 });
      expect(await result.locator(".tool-text").textContent()).toBe("42");
      await page.close();
    });
  },
);
