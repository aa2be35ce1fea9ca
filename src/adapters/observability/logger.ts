import { dirname } from "node:path";
import { Writable } from "node:stream";
import pino, { type Logger as PinoLogger } from "pino";
import { ensureDirectory } from "../system/ensure-directory.js";
import { activeSpanLogFields } from "./active-span.js";

export type LogLevelName = "DEBUG" | "INFO" | "WARNING" | "ERROR";

const PINO_LEVELS: Record<LogLevelName, pino.Level> = {
  DEBUG: "debug",
  INFO: "info",
  WARNING: "warn",
  ERROR: "error",
};

const LEVEL_LABELS: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARNING",
  50: "ERROR",
  60: "FATAL",
};

export interface LoggerOptions {
  level: LogLevelName;
  json: boolean;
  /** Append to this file instead of the stream. */
  file?: string | null;
  /** `stderr` in stdio mode, where stdout carries the protocol. */
  stream: "stdout" | "stderr";
}

/** Keys whose values never reach a log line. */
const REDACTED_PATHS = [
  "req.headers.authorization",
  'req.headers["x-api-key"]',
  "*.password",
  "*.token",
  "*.secret",
  "*.api_key",
  "env",
  "*.env",
];

/**
 * The process logger: JSON lines when `json`, otherwise one readable line per record
 * (`time LEVEL message key=value ...`). Secrets under well-known keys are redacted.
 */
export function createLogger(options: LoggerOptions): PinoLogger {
  const target: NodeJS.WritableStream = options.file
    ? openFile(options.file)
    : options.stream === "stderr"
      ? process.stderr
      : process.stdout;
  const destination = options.json ? target : humanReadable(target);
  return pino(
    {
      level: PINO_LEVELS[options.level],
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      // A line written while a traced request is handled names its trace and span.
      mixin: activeSpanLogFields,
      formatters: { level: (_label, number) => ({ level: LEVEL_LABELS[number] ?? String(number) }) },
    },
    destination,
  );
}

/** The log file cannot be opened; the message names the file and the reason, nothing internal. */
export class LogFileError extends Error {
  override readonly name = "LogFileError";
}

/**
 * Synchronous appends: the process may exit right after its last line, which must not be lost.
 * Throws {@link LogFileError} when the file cannot be opened (a directory, no permission).
 */
function openFile(path: string): NodeJS.WritableStream {
  try {
    // Not pino's `mkdir`: Node's recursive mkdir never returns for some paths (ensureDirectory).
    ensureDirectory(dirname(path));
    return pino.destination({ dest: path, sync: true, append: true }) as unknown as NodeJS.WritableStream;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "EISDIR" ? "it is a directory" : (code ?? "it cannot be written");
    throw new LogFileError(`cannot open the log file ${path}: ${reason}`);
  }
}

function humanReadable(target: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk, _encoding, callback) {
      try {
        const { time, level, msg, ...fields } = JSON.parse(String(chunk)) as Record<string, unknown>;
        const extras = Object.entries(fields)
          .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
          .join(" ");
        target.write(`${time} ${String(level).padEnd(7)} ${msg ?? ""}${extras ? ` ${extras}` : ""}\n`);
      } catch {
        target.write(chunk);
      }
      callback();
    },
  });
}
