import type { FastifyInstance } from "fastify";
import { createLogger } from "../adapters/observability/logger.js";
import { killAllProcessGroups } from "../adapters/upstream/subprocess/process-groups.js";
import {
  ConfigFileMissingError,
  ConfigValidationError,
  type LoadedConfig,
  loadConfig,
} from "../config/load.js";
import { serveStdio } from "../edges/mcp/stdio-entry.js";
import { createGateway, type Gateway } from "./create-gateway.js";
import { unsupportedSettings } from "./unsupported.js";

export interface ServeOptions {
  configPath?: string;
  transport: "http" | "stdio";
  host: string;
  port: string;
  logLevel?: "DEBUG" | "INFO" | "WARNING" | "ERROR";
  logFile?: string;
  jsonLogs?: boolean;
}

/** Runs the gateway until a signal (HTTP) or the client hanging up (stdio). Resolves to the exit code. */
export async function runServe(options: ServeOptions): Promise<number> {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    process.stderr.write(`error: --port must be an integer between 0 and 65535, got '${options.port}'\n`);
    return 1;
  }
  const loaded = loadOrReport(options);
  if (!loaded) return 1;
  const { config } = loaded;
  const logger = createLogger({
    level: config.logging.level,
    json: config.logging.json_format,
    file: config.logging.file ?? null,
    stream: options.transport === "stdio" ? "stderr" : "stdout",
  });
  for (const warning of loaded.warnings)
    logger.warn({ code: warning.code, path: warning.path }, warning.message);
  const unsupported = unsupportedSettings(config);
  if (unsupported.length > 0) {
    for (const problem of unsupported) process.stderr.write(`error: ${problem}\n`);
    return 1;
  }

  const gateway = createGateway({ config, logger });
  gateway.startBackground();
  logger.info(
    {
      config_path: loaded.path,
      mcp_servers: gateway.services.fleet.list().length,
      instance_id: gateway.services.instance.instance_id,
    },
    "gateway started",
  );
  return options.transport === "stdio"
    ? serveOverStdio(gateway)
    : serveOverHttp(gateway, options.host, port, config.http.graceful_shutdown_timeout_s ?? null);
}

function loadOrReport(options: ServeOptions): LoadedConfig | null {
  try {
    return loadConfig({
      cliPath: options.configPath,
      overrides: { logLevel: options.logLevel, logFile: options.logFile, jsonLogs: options.jsonLogs },
    });
  } catch (error) {
    if (error instanceof ConfigFileMissingError) {
      process.stderr.write(`error: ${error.message}\n`);
      return null;
    }
    if (error instanceof ConfigValidationError) {
      process.stderr.write(`error: invalid configuration (${error.issues.length} problem(s)):\n`);
      for (const issue of error.issues) process.stderr.write(`  ${issue.path}: ${issue.message}\n`);
      return null;
    }
    throw error;
  }
}

async function serveOverHttp(
  gateway: Gateway,
  host: string,
  port: number,
  gracefulTimeoutS: number | null,
): Promise<number> {
  const { logger } = gateway.services;
  const app = await gateway.http();
  try {
    const address = await app.listen({ host, port });
    logger.info({ address }, "listening");
  } catch (error) {
    process.stderr.write(`error: cannot listen on ${host}:${port}: ${(error as Error).message}\n`);
    await gateway.shutdown();
    return 1;
  }
  const signal = await nextSignal();
  logger.info({ signal }, "shutting down");
  onSecondSignal(() => {
    killAllProcessGroups();
    process.exit(1);
  });
  await closeHttp(app, gracefulTimeoutS);
  await gateway.shutdown();
  logger.info({}, "stopped");
  return 0;
}

/** Stops accepting and waits for in-flight requests: unbounded unless `http.graceful_shutdown_timeout_s`. */
async function closeHttp(app: FastifyInstance, timeoutS: number | null): Promise<void> {
  const closing = app.close();
  if (timeoutS === null) return closing;
  await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, timeoutS * 1000).unref())]);
}

async function serveOverStdio(gateway: Gateway): Promise<number> {
  const { closed } = await serveStdio(gateway.services);
  const reason = await Promise.race([closed.then(() => "stdin closed"), nextSignal()]);
  gateway.services.logger.info({ reason }, "shutting down");
  await gateway.shutdown();
  return 0;
}

function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals) => {
      process.off("SIGTERM", handler);
      process.off("SIGINT", handler);
      resolve(signal);
    };
    process.once("SIGTERM", handler);
    process.once("SIGINT", handler);
  });
}

function onSecondSignal(action: () => void): void {
  process.once("SIGTERM", action);
  process.once("SIGINT", action);
}
