import { dirname } from "node:path";
import type { FastifyInstance } from "fastify";
import type { Logger } from "../app/ports/logger.js";
import type { GatewayConfig } from "../config/schema.js";
import { serveStdio } from "../edges/mcp/stdio-entry.js";
import { boundUrl } from "./bound-url.js";
import { createGateway, type Gateway } from "./create-gateway.js";
import { loadOrReport } from "./load-or-report.js";
import { openLoggerOrReport } from "./open-logger.js";
import { onReloadSignal, ShutdownSignals } from "./signals.js";
import { exposedWithoutAuth, startupFacts } from "./startup-banner.js";
import { VERSION } from "./version.js";

export interface ServeOptions {
  configPath?: string;
  transport: "http" | "stdio";
  host: string;
  port: string;
  /** Any case; checked with the configuration (`--log-level: ...`). */
  logLevel?: string;
  logFile?: string;
  jsonLogs?: boolean;
  /** SIGTERM or SIGINT received before `serve` could handle them (while its code loaded). */
  earlySignals?: readonly NodeJS.Signals[];
}

/**
 * Runs the gateway until a signal (HTTP) or the client hanging up (stdio). Resolves to the exit code;
 * the caller exits the process with it (stdin or lingering sockets must not keep it alive).
 */
export async function runServe(options: ServeOptions): Promise<number> {
  const signals = new ShutdownSignals(options.earlySignals);
  try {
    return await serveUntilSignal(options, signals);
  } finally {
    signals.dispose();
  }
}

async function serveUntilSignal(options: ServeOptions, signals: ShutdownSignals): Promise<number> {
  const port = /^\d{1,5}$/.test(options.port) ? Number(options.port) : Number.NaN;
  if (!(port <= 65_535)) {
    process.stderr.write(`error: --port must be an integer between 0 and 65535, got '${options.port}'\n`);
    return 1;
  }
  const loaded = loadOrReport({
    cliPath: options.configPath,
    overrides: { logLevel: options.logLevel, logFile: options.logFile, jsonLogs: options.jsonLogs },
  });
  if (!loaded) return 1;
  const { config } = loaded;
  const logger = openLoggerOrReport(config.logging, options.transport === "stdio" ? "stderr" : "stdout");
  if (!logger) return 1;
  for (const warning of loaded.warnings)
    logger.warn({ code: warning.code, path: warning.path }, warning.message);
  logger.info({ version: VERSION, config_path: loaded.path }, "gateway starting");
  const configDir = loaded.path ? dirname(loaded.path) : undefined;
  let gateway: Gateway;
  try {
    gateway = await createGateway({
      config,
      logger,
      env: loaded.env,
      configDir,
      ...(loaded.path && { configPath: loaded.path, configRaw: loaded.raw }),
    });
  } catch (error) {
    fatal(logger, config.logging.json_format, error instanceof Error ? error.message : String(error));
    return 1;
  }
  try {
    return await serveGateway(gateway, signals, {
      ...options,
      port,
      configPath: loaded.path,
      config,
    });
  } finally {
    // However serving ended (a signal, the client hanging up, an HTTP application that could not
    // be built), what the gateway opened is closed before `serve` returns. Idempotent: the usual
    // paths shut it down already, in their own order.
    await gateway.shutdown();
  }
}

/** Serves until a signal or the stdio client hanging up; shuts the gateway down on its usual paths. */
async function serveGateway(
  gateway: Gateway,
  signals: ShutdownSignals,
  options: {
    transport: ServeOptions["transport"];
    host: string;
    port: number;
    /** For the log: the file the configuration was read from, null when none. */
    configPath: string | null;
    config: GatewayConfig;
  },
): Promise<number> {
  const { logger } = gateway.services;
  if (signals.triggered) {
    // Told to stop while starting: nothing is served, the gateway stops in order.
    logger.info({}, "shutting down before serving");
    await gateway.shutdown();
    return 0;
  }
  // Built before the background work starts, so that the shutdown, last opened first, stops the
  // leader-only work (releasing the lease at once, for a peer to take over) before the MCP endpoint.
  const app = options.transport === "http" ? await gateway.http({ host: options.host }) : null;
  gateway.startBackground();
  const { reloader } = gateway;
  const stopReloadSignal = reloader
    ? onReloadSignal(() => reloader.reload({ graceful: true, requestedBy: "system:sighup" }))
    : () => {};
  const { config } = options;
  if (app === null) {
    logger.info(
      startupFacts(config, gateway, { transport: "stdio", address: null, configPath: options.configPath }),
      "gateway started",
    );
  }
  try {
    return await (app === null
      ? serveOverStdio(gateway, signals, config.http)
      : serveOverHttp(gateway, app, signals, {
          host: options.host,
          port: options.port,
          gracefulTimeoutS: config.http.graceful_shutdown_timeout_s ?? null,
          started: (address) => {
            logger.info(
              startupFacts(config, gateway, { transport: "http", address, configPath: options.configPath }),
              "gateway started",
            );
            if (exposedWithoutAuth(config, options.host)) {
              logger.warn(
                { address },
                "authentication is off on a listener other machines can reach: anyone who reaches it can do everything (auth.enabled)",
              );
            }
          },
          json: config.logging.json_format,
        }));
  } finally {
    stopReloadSignal();
  }
}

async function serveOverHttp(
  gateway: Gateway,
  app: FastifyInstance,
  signals: ShutdownSignals,
  listen: {
    host: string;
    port: number;
    gracefulTimeoutS: number | null;
    /** Told the address actually bound, once the port is bound. */
    started: (address: string) => void;
    json: boolean;
  },
): Promise<number> {
  const { logger } = gateway.services;
  const { host, port, gracefulTimeoutS } = listen;
  try {
    const answered = await app.listen({ host, port });
    listen.started(boundUrl(app.server.address()) ?? answered);
  } catch (error) {
    fatal(logger, listen.json, `cannot listen on ${host}:${port}: ${(error as Error).message}`);
    await gateway.shutdown();
    return 1;
  }
  const signal = await signals.received;
  logger.info({ signal }, "shutting down");
  await gateway.releaseHeldCalls();
  await closeHttp(app, gracefulTimeoutS);
  await gateway.shutdown();
  logger.info({}, "stopped");
  return 0;
}

/**
 * How often, while the HTTP server closes, the connections that went idle since are closed. Node
 * closes those idle when the close begins; one whose answer was still being written (a call whose
 * answer waits for its commit, say) goes idle a moment later and would otherwise hold the close open
 * until its keep-alive timeout (`http.keep_alive_timeout_s`, 72 s by default).
 */
const IDLE_SWEEP_MS = 100;

/** Stops accepting and waits for in-flight requests: unbounded unless `http.graceful_shutdown_timeout_s`. */
async function closeHttp(app: FastifyInstance, timeoutS: number | null): Promise<void> {
  const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
  try {
    await boundedWait(app.close(), timeoutS);
  } finally {
    clearInterval(sweep);
  }
}

/** Waits for `done`, or `timeoutS` seconds when given (`http.graceful_shutdown_timeout_s`). */
async function boundedWait(done: Promise<unknown>, timeoutS: number | null): Promise<void> {
  if (timeoutS === null) {
    await done;
    return;
  }
  await Promise.race([done, new Promise((resolve) => setTimeout(resolve, timeoutS * 1000).unref())]);
}

async function serveOverStdio(
  gateway: Gateway,
  signals: ShutdownSignals,
  http: GatewayConfig["http"],
): Promise<number> {
  const gracefulTimeoutS = http.graceful_shutdown_timeout_s ?? null;
  const stdio = await serveStdio(
    gateway.edges,
    http.max_json_depth,
    gateway.frontDoor?.sessionServer,
    gateway.stdioPrincipal,
  );
  const reason = await Promise.race([stdio.closed.then(() => "client gone"), signals.received]);
  gateway.services.logger.info({ reason }, "shutting down");
  await gateway.releaseHeldCalls();
  // No new line is read; the requests read are answered, bounded as the HTTP server's are.
  stdio.stopReading();
  await boundedWait(stdio.drained(), gracefulTimeoutS);
  await stdio.close();
  await gateway.shutdown();
  return 0;
}

/**
 * A failure that stops the gateway: a JSON log line (`fatal: true`) under JSON logs (what a log collector
 * reads), else `error: <reason>` on stderr as the command line has always said it.
 */
function fatal(logger: Logger, json: boolean, reason: string): void {
  if (json) logger.error({ reason, fatal: true }, "gateway stopped: cannot serve");
  else process.stderr.write(`error: ${reason}\n`);
}
