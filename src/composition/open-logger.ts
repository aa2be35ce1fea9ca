import { createLogger, LogFileError } from "../adapters/observability/logger.js";
import type { GatewayConfig } from "../config/schema.js";

/**
 * The logger of a command of the CLI, as `logging` asks for it, on `stream` unless a file is set.
 * A log file that cannot be opened is reported on stderr (`error: ...`) and answers null.
 */
export function openLoggerOrReport(
  logging: GatewayConfig["logging"],
  stream: "stdout" | "stderr",
): ReturnType<typeof createLogger> | null {
  try {
    return createLogger({
      level: logging.level,
      json: logging.json_format,
      file: logging.file ?? null,
      stream,
    });
  } catch (error) {
    if (!(error instanceof LogFileError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return null;
  }
}
