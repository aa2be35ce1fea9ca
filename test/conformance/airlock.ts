import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI } from "../support/cli.js";
import { CONFORMANCE_FIXTURE, type RunningProcess, spawnUntil } from "./fixture.js";

/** The id the fixture has in the gateway's configuration. */
export const FIXTURE_SERVER_ID = "conformance";

/**
 * Front-door topology: the fixture's tools, resources and prompts are served under their own
 * names on the gateway's `/mcp`. The fixture runs as a stdio subprocess of the gateway; readiness
 * waits until its catalogue was projected once.
 */
export function frontDoorConfig(fixture = CONFORMANCE_FIXTURE): string {
  return frontDoorOver(`command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(fixture)}, stdio]`);
}

/** The same topology with the fixture reached over streamable HTTP at `url`: a `remote` server. */
export function remoteFrontDoorConfig(url: string): string {
  return frontDoorOver(`mode: remote\n    endpoint: ${JSON.stringify(url)}`);
}

function frontDoorOver(server: string): string {
  return `
tool_access:
  mode: front_door
  required_catalogue:
    servers: [${FIXTURE_SERVER_ID}]
    retry_for_s: 30
mcp_servers:
  ${FIXTURE_SERVER_ID}:
    ${server}
    description: Implements what the MCP conformance suite's server scenarios expect
`;
}

export interface RunningAirlock {
  /** The gateway's MCP endpoint. */
  mcpUrl: string;
  output: () => string;
  stop(): Promise<void>;
}

/** How long the fixture may take to start and be projected (a Node process: well under a second). */
const READY_TIMEOUT_MS = 20_000;

/**
 * The built CLI (`airlock serve --http`) on a free loopback port, in a scratch directory that holds
 * its configuration and whatever it writes relative to its working directory (the event store).
 * `configText` declares the fixture (`frontDoorConfig` or `remoteFrontDoorConfig`). Resolves once
 * the fixture is started and `/health/ready` answers 200.
 */
export async function startFrontDoorAirlock(configText = frontDoorConfig()): Promise<RunningAirlock> {
  if (!existsSync(CLI)) throw new Error("dist/cli.js is missing: run `npm run build` first");
  const dir = mkdtempSync(join(tmpdir(), "airlock-conformance-gw-"));
  const config = join(dir, "config.yaml");
  writeFileSync(config, configText);
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  let gateway: RunningProcess & { value: string };
  try {
    gateway = await spawnUntil(
      [CLI, "serve", "--config", config, "--http", "--host", "127.0.0.1", "--port", "0", "--json-logs"],
      (stdout) => /"address":"(http:\/\/[^"]+)"/.exec(stdout)?.[1],
      { cwd: dir, what: "Airlock" },
    );
  } catch (error) {
    cleanup();
    throw error;
  }
  const baseUrl = gateway.value;
  const stop = async () => {
    await gateway.stop(10_000);
    cleanup();
  };
  try {
    const started = await fetch(new URL(`/api/mcp_servers/${FIXTURE_SERVER_ID}/start`, baseUrl), {
      method: "POST",
      signal: AbortSignal.timeout(READY_TIMEOUT_MS),
    });
    if (started.status !== 200)
      throw new Error(`starting the fixture answered ${started.status}: ${await started.text()}`);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const ready = await fetch(new URL("/health/ready", baseUrl));
      if (ready.status === 200) break;
      if (Date.now() > deadline)
        throw new Error(`/health/ready still answers ${ready.status}: ${await ready.text()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (error) {
    const output = gateway.output();
    await stop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return { mcpUrl: new URL("/mcp", baseUrl).href, output: gateway.output, stop };
}
