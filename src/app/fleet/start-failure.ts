import { GatewayError } from "../../domain/errors.js";
import { utf8Length } from "../../domain/limits/utf8-length.js";
import { redactOutputLine, secretValuesOf } from "../../domain/server/output-redaction.js";
import { UpstreamStartFailure } from "../ports/upstream.js";
import { GATEWAY_NOTE_PREFIX } from "./log-ring.js";
import type { ManagedServer } from "./managed-server.js";

/** Lines of stderr a failed start reports: the head of a stack trace or a usage message. */
export const STDERR_TAIL_LINES = 20;
/** Their total UTF-8 size, so an error answer stays small whatever the server printed. */
export const STDERR_TAIL_BYTES = 4096;
/** The last stderr line quoted in the error's message (which every path shows). */
const MESSAGE_LINE_CHARS = 300;

/**
 * What a failed start says of itself in its error's `details`, on REST and MCP alike: the server,
 * the reason (the factory's safe-to-show message), how its process ended when it did, and its
 * last stderr lines, redacted.
 */
export interface StartFailureDetails {
  [key: string]: unknown;
  mcp_server_id: string;
  reason: string;
  exit_code?: number | null;
  signal?: string | null;
  stderr: string[];
}

/**
 * The error a failed start answers with: `CannotStartMcpServerError` whose message names the reason
 * and quotes the last stderr line, and whose details are {@link StartFailureDetails}. `mark` is
 * the position of the server's log ring when the attempt began: only what this attempt wrote is
 * reported. Each line is redacted ({@link redactOutputLine}) with the server's configured secrets.
 */
export function startFailure(
  server: ManagedServer,
  reason: string,
  cause: unknown,
  mark: number,
): { error: GatewayError; details: StartFailureDetails } {
  const stderr = stderrTail(server, mark);
  const details: StartFailureDetails = {
    mcp_server_id: server.id,
    reason,
    ...(cause instanceof UpstreamStartFailure && {
      exit_code: cause.exit.code,
      signal: cause.exit.signal,
    }),
    stderr,
  };
  const last = stderr.at(-1);
  const quoted = last === undefined ? "" : `; stderr: ${clip(last, MESSAGE_LINE_CHARS)}`;
  const message = `Failed to start MCP server '${server.id}': ${reason}${quoted}`;
  return { error: new GatewayError("CannotStartMcpServerError", message, details), details };
}

/** The attempt's last non-blank stderr lines, redacted, within the line and byte bounds. */
function stderrTail(server: ManagedServer, mark: number): string[] {
  const written = server.logs
    .since(mark)
    .filter(
      (line) =>
        line.stream === "stderr" &&
        !line.content.startsWith(GATEWAY_NOTE_PREFIX) &&
        line.content.trim() !== "",
    )
    .slice(-STDERR_TAIL_LINES);
  if (written.length === 0) return [];
  const secrets = secretValuesOf(server.spec);
  const kept: string[] = [];
  let budget = STDERR_TAIL_BYTES;
  // Newest first: the lines nearest the failure are the ones kept when the budget runs out.
  for (let index = written.length - 1; index >= 0 && budget > 0; index--) {
    const line = clipBytes(redactOutputLine(written[index]?.content ?? "", secrets), budget);
    budget -= utf8Length(line) + 1;
    kept.unshift(line);
  }
  return kept;
}

function clip(text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars)}...` : text;
}

/** The text cut to at most `bytes` UTF-8 bytes, on a character boundary. */
function clipBytes(text: string, bytes: number): string {
  if (utf8Length(text) <= bytes) return text;
  let end = Math.min(text.length, bytes);
  while (end > 0 && utf8Length(text.slice(0, end)) > bytes) end--;
  return text.slice(0, end);
}
