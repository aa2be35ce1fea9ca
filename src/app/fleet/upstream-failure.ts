import { type ErrorType, GatewayError } from "../../domain/errors.js";

/** JSON-RPC code the MCP SDK uses when a request outlives its timeout. */
const SDK_REQUEST_TIMEOUT = -32001;

/**
 * Classifies what an upstream call or start threw into a catalogued error with a message safe to
 * show. Upstream messages describe the upstream (a tool's own failure, a process exit); stacks and
 * local paths are never included.
 */
export function upstreamFailure(error: unknown, fallback: ErrorType, timeoutMs?: number): GatewayError {
  if (error instanceof GatewayError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const name = (error as { name?: unknown } | null)?.name;
  if (code === SDK_REQUEST_TIMEOUT || name === "TimeoutError") {
    return new GatewayError(
      "ToolTimeoutError",
      timeoutMs ? `timed out after ${timeoutMs} ms` : "timed out",
      timeoutMs ? { timeout_ms: timeoutMs } : null,
    );
  }
  if (name === "AbortError") return new GatewayError("ToolInvocationError", "cancelled");
  const message = error instanceof Error ? error.message : String(error);
  return new GatewayError(fallback, firstLine(message));
}

/**
 * The first line, without a repeated `MCP error <code>: ` prefix: an SDK server answers a thrown
 * `McpError` with its message, prefix included, and the SDK client adds the prefix again.
 */
function firstLine(text: string): string {
  const line = (text.split("\n", 1)[0] ?? "").replace(/^(MCP error -?\d+: )(?=\1)/, "");
  return line.length > 500 ? `${line.slice(0, 500)}...` : line;
}
