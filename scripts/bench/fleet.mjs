// A large fleet: start-up time and memory of the gateway configured with many servers,
// `gateway_list` over all of them, and the memory each running upstream costs.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { connectHttp, parsePayload } from "./clients.mjs";
import { childPids } from "./cpu.mjs";
import { startGateway } from "./gateway-process.mjs";
import { rssMib } from "./processes.mjs";
import { round3, summarize } from "./stats.mjs";

/** Calls of `gateway_list` before measuring. */
const LIST_WARMUP = 3;
/** Settling time after start-up before the second memory reading. */
const SETTLE_MS = 1000;

/** Server ids of the fleet: s0000, s0001, ... */
const serverId = (i) => `s${String(i).padStart(4, "0")}`;

/**
 * The fleet's configuration: `count` copies of the echo upstream, in egress mode (the front door
 * would start every one of them at start-up), with the same auth, policy and stores as the rest.
 */
export function fleetConfigText(base, count, echoServer) {
  const lines = ["mcp_servers:"];
  for (let i = 0; i < count; i++) {
    lines.push(
      `  ${serverId(i)}:`,
      "    mode: subprocess",
      `    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(echoServer)}]`,
      "    tools: { deny_list: [secret] }",
    );
  }
  return `${lines.join("\n")}\n${base}`;
}

/**
 * Starts the gateway with `servers` servers, reads its start-up time and memory, calls
 * `gateway_list` `listCalls` times, then starts `running` servers one by one and reads the memory
 * again. Stops the gateway before answering.
 */
export async function measureFleet(ctx, { servers, running, listCalls, baseConfig, shouldStop }) {
  const configPath = join(ctx.workDir, `fleet-${servers}.yaml`);
  writeFileSync(configPath, fleetConfigText(baseConfig, servers, ctx.echoServer));
  const gateway = await startGateway({
    cliPath: ctx.cliPath,
    configPath,
    cwd: ctx.workDir,
    env: ctx.env,
    timeoutMs: ctx.timeoutMs,
  });
  ctx.open.add(gateway);
  let session = null;
  try {
    const atListen = gateway.memory();
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const settled = gateway.memory();

    session = await connectHttp(new URL("/mcp", gateway.address).href, { "x-api-key": ctx.apiKey });
    let listed = null;
    const list = async () => {
      const payload = parsePayload(await session.callTool("gateway_list", {}));
      listed = payload?.mcp_servers?.length ?? null;
      return listed === servers;
    };
    for (let i = 0; i < LIST_WARMUP; i++) await list();
    const latencies = [];
    let errors = 0;
    const began = performance.now();
    for (let i = 0; i < listCalls && !shouldStop(); i++) {
      const callBegan = performance.now();
      const ok = await list().catch(() => false);
      latencies.push(performance.now() - callBegan);
      if (!ok) errors++;
    }
    const listing = summarize({
      latenciesMs: latencies,
      errors,
      wallMs: performance.now() - began,
      sessions: 1,
    });

    const before = gateway.memory();
    const starts = [];
    for (let i = 0; i < running && !shouldStop(); i++) {
      const startBegan = performance.now();
      const payload = parsePayload(await session.callTool("gateway_start", { mcp_server: serverId(i) }));
      if (!payload || payload.error !== undefined)
        throw new Error(`gateway_start ${serverId(i)} failed: ${JSON.stringify(payload)}`);
      starts.push(performance.now() - startBegan);
    }
    const after = gateway.memory();
    const children = childPids(gateway.pid)
      .map(rssMib)
      .filter((value) => value !== null);
    const childMean = children.length === 0 ? null : children.reduce((a, b) => a + b, 0) / children.length;
    return {
      servers,
      startup_ms: round3(gateway.startupMs),
      rss_mib: { at_listen: atListen?.rss_mib ?? null, settled: settled?.rss_mib ?? null },
      gateway_list: { ...listing, mcp_servers_listed: listed },
      running: {
        started: starts.length,
        cold_start_ms_mean:
          starts.length === 0 ? null : round3(starts.reduce((a, b) => a + b, 0) / starts.length),
        gateway_rss_mib: { before: before?.rss_mib ?? null, after: after?.rss_mib ?? null },
        gateway_mib_per_upstream:
          before && after && starts.length > 0
            ? round3((after.rss_mib - before.rss_mib) / starts.length)
            : null,
        upstream_processes: children.length,
        upstream_rss_mib_mean: childMean === null ? null : round3(childMean),
      },
    };
  } finally {
    await session?.close().catch(() => {});
    await gateway.stop(10_000);
    ctx.open.delete(gateway);
  }
}
