// What the benchmark drives: each target starts its servers, opens sessions with the same SDK
// client, and names the processes whose CPU and memory count as its own.
import { join } from "node:path";
import { CALLS, connectHttp, connectModernSession, connectStateless, connectStdio } from "./clients.mjs";
import { processCpuMs, treeCpuMs } from "./cpu.mjs";
import { startGateway } from "./gateway-process.mjs";
import { freePort, startProcess, treeRssMib } from "./processes.mjs";

/**
 * The targets, in the order they run. `ctx` holds `root`, `echoServer` (path), `workDir`,
 * `configs` ({front_door, egress}), `apiKey`, `env` (for the gateway), `cliPath`, `timeoutMs`.
 * `start(ctx)` resolves to `{connect(), serverCpuMs(), serverAloneCpuMs(), serverRssMib(), stop(), address?, gateway?}`.
 */
export const TARGETS = [
  {
    id: "ceiling",
    label: "ceiling (no SDK, no logic)",
    kind: CALLS.direct,
    start: (ctx) => httpServer(ctx, "ceiling", [join(ctx.benchDir, "ceiling-server.mjs")]),
  },
  {
    id: "upstream_http",
    label: "echo upstream, HTTP direct",
    kind: CALLS.direct,
    start: (ctx) => httpServer(ctx, "echo upstream", [ctx.echoServer, "--http", "0"]),
  },
  {
    id: "upstream_stdio",
    label: "echo upstream, stdio direct",
    kind: CALLS.direct,
    start: async (ctx) => {
      // Each session spawns its own upstream, as a stdio client does.
      const sessions = [];
      return {
        async connect() {
          const session = await connectStdio(process.execPath, [ctx.echoServer]);
          sessions.push(session);
          return session;
        },
        serverCpuMs: () => sum(sessions.map((session) => treeCpuMs(session.pid))),
        serverAloneCpuMs: () => sum(sessions.map((session) => processCpuMs(session.pid))),
        serverRssMib: () => sum(sessions.map((session) => treeRssMib(session.pid))),
        stop: async () => {},
      };
    },
  },
  {
    id: "supergateway",
    label: "supergateway --stateful",
    kind: CALLS.direct,
    peer: true,
    start: async (ctx) => {
      const port = await freePort();
      const upstream = [process.execPath, ctx.echoServer].map((part) => JSON.stringify(part)).join(" ");
      return peer(ctx, "supergateway", port, [
        "--stdio",
        upstream,
        "--outputTransport",
        "streamableHttp",
        "--stateful",
        "--port",
        String(port),
        "--logLevel",
        "none",
      ]);
    },
  },
  {
    id: "mcp_proxy",
    label: "mcp-proxy (stream)",
    kind: CALLS.direct,
    peer: true,
    start: async (ctx) => {
      const port = await freePort();
      return peer(ctx, "mcp-proxy", port, [
        "--host",
        "127.0.0.1",
        "--port",
        String(port),
        "--server",
        "stream",
        "--",
        process.execPath,
        ctx.echoServer,
      ]);
    },
  },
  {
    id: "airlock_front_door",
    label: "Airlock front door",
    kind: CALLS.direct,
    airlock: true,
    start: (ctx, options) => airlock(ctx, ctx.configs.front_door, options),
  },
  {
    id: "airlock_front_door_stateless",
    label: "Airlock front door, 2026-07-28",
    kind: CALLS.direct,
    airlock: true,
    start: async (ctx, options) => {
      const handle = await airlock(ctx, ctx.configs.front_door, options);
      return { ...handle, connect: () => connectStateless(handle.url, handle.headers) };
    },
  },
  {
    id: "airlock_front_door_v2_session",
    label: "Airlock front door, SDK v2 client on a session",
    kind: CALLS.direct,
    airlock: true,
    start: async (ctx, options) => {
      const handle = await airlock(ctx, ctx.configs.front_door, options);
      return { ...handle, connect: () => connectModernSession(handle.url, handle.headers) };
    },
  },
  {
    id: "airlock_egress",
    label: "Airlock egress (gateway_call)",
    kind: CALLS.egress,
    airlock: true,
    start: (ctx, options) => airlock(ctx, ctx.configs.egress, options),
  },
];

function sum(values) {
  return values.some((value) => value === null) ? null : values.reduce((total, value) => total + value, 0);
}

async function httpServer(ctx, name, args) {
  const server = await startProcess({
    name,
    command: process.execPath,
    args,
    cwd: ctx.workDir,
    timeoutMs: ctx.timeoutMs,
  });
  return served(server, server.url, {});
}

async function peer(ctx, name, port, args) {
  const url = `http://127.0.0.1:${port}/mcp`;
  const server = await startProcess({
    name,
    command: join(ctx.root, "node_modules", ".bin", name),
    args,
    cwd: ctx.workDir,
    readyUrl: url,
    timeoutMs: ctx.timeoutMs,
  });
  return served(server, url, {});
}

async function airlock(ctx, configPath, { nodeArgs = [], wrapper = [] } = {}) {
  const gateway = await startGateway({
    cliPath: ctx.cliPath,
    configPath,
    cwd: ctx.workDir,
    env: ctx.env,
    timeoutMs: ctx.timeoutMs,
    nodeArgs,
    wrapper,
  });
  const handle = served(
    { pid: gateway.pid, stop: (grace) => gateway.stop(grace) },
    new URL("/mcp", gateway.address).href,
    { "x-api-key": ctx.apiKey },
  );
  return { ...handle, address: gateway.address, gateway };
}

function served(server, url, headers) {
  return {
    url,
    headers,
    connect: () => connectHttp(url, headers),
    serverCpuMs: () => treeCpuMs(server.pid),
    serverAloneCpuMs: () => processCpuMs(server.pid),
    serverRssMib: () => treeRssMib(server.pid),
    stop: (graceMs = 10_000) => server.stop(graceMs),
  };
}
