import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

/** Debian's Chromium (package `chromium`); `.ci/run` installs it when missing. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * A browser test's time: a page, its gateway and Chromium share two cores with the rest of the
 * suite, and one test drives several pages.
 */
export const BROWSER_TEST_TIMEOUT_MS = 60_000;

/** Where the console's tests leave their screenshots (the main ones are copied into docs/). */
export const SCREENSHOTS = resolve("test-results/console");

/** Whether browser tests can run here; under CI they must (a missing browser fails them). */
export function browserAvailable(): boolean {
  const found = existsSync(CHROMIUM);
  if (!found && process.env.CI === "true") {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (.ci/run does)`);
  }
  return found;
}

/** Headless Chromium with the flags a container without a sandbox or a GPU needs. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/**
 * A new page of `browser` signed in to the console at `base` with an API key, then at `#/<at>`
 * (the page the console opens first when `at` is absent).
 */
export async function signIn(
  browser: Browser,
  base: string,
  key: string,
  options: { at?: string; width?: number; height?: number } = {},
): Promise<Page> {
  const page = await browser.newPage({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
  });
  await page.goto(`${base}/ui/`);
  await page.getByLabel("API key", { exact: true }).fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "console" }).waitFor();
  if (options.at !== undefined) await page.evaluate(`location.hash = ${JSON.stringify(`#/${options.at}`)}`);
  return page;
}

/** A screenshot of the page as it is, named after what it shows. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Every serious or critical accessibility violation axe-core finds on the page, as text. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  // Evaluated through the browser's debugging protocol: the console's CSP allows no injected script tag.
  await page.evaluate(readFileSync(resolve("node_modules/axe-core/axe.min.js"), "utf8"));
  const found = await page.evaluate<unknown>("axe.run(document)");
  const { violations } = found as {
    violations: { id: string; impact: string; help: string; nodes: unknown[] }[];
  };
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) => `${violation.id} (${violation.impact}): ${violation.help} [${violation.nodes.length}]`,
    );
}
