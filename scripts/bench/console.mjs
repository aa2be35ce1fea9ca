// The console's first load against a running gateway (docs/benchmarks.md "The console"): the
// bytes a browser downloads and the time from navigation to the fleet list shown with its data,
// cold (a fresh browser context, nothing cached) and warm (the same context again), in Debian's
// Chromium. Run after `npm run build`: `node scripts/bench/console.mjs [--loads N]`.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { startGateway } from "./gateway-process.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const { values } = parseArgs({ options: { loads: { type: "string", default: "10" } } });
const loads = Number(values.loads);

/** Authentication off (the banner shows), ten servers: the fleet page has data to show. */
function configText(dir) {
  const servers = Array.from({ length: 10 }, (_, i) =>
    [
      `  s${i}:`,
      `    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(ROOT, "examples/servers/arithmetic.mjs"))}]`,
    ].join("\n"),
  );
  return [
    `persistence: {backend: sqlite, sqlite: {path: ${JSON.stringify(join(dir, "store.db"))}}}`,
    "mcp_servers:",
    ...servers,
    "",
  ].join("\n");
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** One load: navigation to the fleet table's first row; bytes as the network delivered them. */
async function load(context, url) {
  const page = await context.newPage();
  let bytes = 0;
  const session = await context.newCDPSession(page);
  await session.send("Network.enable");
  session.on("Network.loadingFinished", (event) => {
    bytes += event.encodedDataLength;
  });
  const began = performance.now();
  await page.goto(url);
  await page.locator("tr[data-server]").first().waitFor();
  const ms = performance.now() - began;
  await page.close();
  return { ms, bytes };
}

const dir = mkdtempSync(join(tmpdir(), "airlock-console-bench-"));
const configPath = join(dir, "config.yaml");
writeFileSync(configPath, configText(dir));
const gateway = await startGateway({
  cliPath: join(ROOT, "dist/cli.js"),
  configPath,
  cwd: dir,
  env: { ...process.env },
  timeoutMs: 30_000,
});
const browser = await chromium.launch({
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
try {
  const url = `${gateway.address}/ui/#/fleet`;
  // One load first, unmeasured: the gateway's own first requests (its JIT) are not the console's.
  await load(await browser.newContext(), url);
  const cold = [];
  const warm = [];
  for (let i = 0; i < loads; i++) {
    const context = await browser.newContext();
    cold.push(await load(context, url));
    warm.push(await load(context, url));
    await context.close();
  }
  const report = {
    loads,
    cold_ms_median: Math.round(median(cold.map((l) => l.ms))),
    cold_kib: Math.round((median(cold.map((l) => l.bytes)) / 1024) * 10) / 10,
    warm_ms_median: Math.round(median(warm.map((l) => l.ms))),
    warm_kib: Math.round((median(warm.map((l) => l.bytes)) / 1024) * 10) / 10,
  };
  console.log(JSON.stringify(report, null, 2));
} finally {
  await browser.close();
  await gateway.stop(10_000);
  rmSync(dir, { recursive: true, force: true });
}
