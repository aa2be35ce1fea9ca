import { type ErrorType, GatewayError, RequestRejected, type UpstreamRpcError } from "../../domain/errors.js";
import { UpstreamConnectionLost } from "../ports/upstream.js";

/** JSON-RPC code the MCP SDK uses when a request outlives its timeout. */
const SDK_REQUEST_TIMEOUT = -32001;

/**
 * Classifies what an upstream call or start threw into a catalogued error with a message safe to
 * show. Upstream messages describe the upstream (a tool's own failure, a process exit); stacks and
 * local paths are never included.
 */
export function upstreamFailure(error: unknown, fallback: ErrorType, timeoutMs?: number): GatewayError {
  // A handler check met on the way (the SSRF guard refusing a REST-registered endpoint) is a
  // failure of the call or start here, reported with its code.
  if (error instanceof RequestRejected)
    return new GatewayError(fallback, firstLine(`${error.code}: ${error.detail}`));
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
  if (error instanceof UpstreamConnectionLost && fallback === "ToolInvocationError") {
    return new ConnectionLostFailure(firstLine(message));
  }
  const rpc = fallback === "ToolInvocationError" ? rpcErrorOf(error, code) : undefined;
  // A `ToolInvocationError` everywhere that keeps the error as the upstream sent it, for the front
  // door to relay it unchanged.
  if (rpc) return new GatewayError("ToolInvocationError", firstLine(message), null, { upstream: rpc });
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

/**
 * The JSON-RPC error an SDK client raised for an upstream's error response (`McpError`: a numeric
 * code and the message `MCP error <code>: <message as sent>`), or undefined for anything else.
 */
function rpcErrorOf(error: unknown, code: unknown): UpstreamRpcError | undefined {
  if (!(error instanceof Error) || typeof code !== "number") return undefined;
  const prefix = `MCP error ${code}: `;
  if (!error.message.startsWith(prefix)) return undefined;
  const data = (error as { data?: unknown }).data;
  return { code, message: error.message.slice(prefix.length), ...(data !== undefined && { data }) };
}

/**
 * A call that failed because its connection ended under it (the server's process exited, its
 * connection dropped, or it was stopped), not because the server answered it with an error.
 */
export class ConnectionLostFailure extends GatewayError {
  constructor(message: string) {
    super("ToolInvocationError", message);
  }
}
