import { type ErrorType, GatewayError, RequestRejected, type UpstreamRpcError } from "../../domain/errors.js";
import { UpstreamConnectionLost } from "../ports/upstream.js";

/** JSON-RPC code of a request that outlived its timeout, as MCP SDKs answer it. */
const RPC_REQUEST_TIMEOUT = -32001;

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
  if (code === RPC_REQUEST_TIMEOUT || name === "TimeoutError") {
    return new GatewayError(
      "ToolTimeoutError",
      timeoutMs ? `timed out after ${timeoutMs} ms` : "timed out",
      timeoutMs ? { timeout_ms: timeoutMs } : null,
    );
  }
  if (name === "AbortError") return new GatewayError("ToolInvocationError", "cancelled");
  const rpc = rpcErrorOf(error, code);
  // A JSON-RPC error is named with its code, as `MCP error <code>: <message as sent>`.
  const message = rpc
    ? `MCP error ${rpc.code}: ${rpc.message}`
    : error instanceof Error
      ? error.message
      : String(error);
  if (error instanceof UpstreamConnectionLost && fallback === "ToolInvocationError") {
    return new ConnectionLostFailure(firstLine(message));
  }
  // A `ToolInvocationError` everywhere that keeps the error as the upstream sent it, for the front
  // door to relay it unchanged.
  if (rpc && fallback === "ToolInvocationError")
    return new GatewayError("ToolInvocationError", firstLine(message), null, { upstream: rpc });
  return new GatewayError(fallback, firstLine(message));
}

/**
 * The first line, without a repeated `MCP error <code>: ` prefix: an SDK server of the 2025 era
 * answers a thrown error with its message, prefix included, and the prefix is added again here.
 */
function firstLine(text: string): string {
  const line = (text.split("\n", 1)[0] ?? "").replace(/^(MCP error -?\d+: )(?=\1)/, "");
  return line.length > 500 ? `${line.slice(0, 500)}...` : line;
}

/**
 * The JSON-RPC error an upstream answered with, as the MCP client raised it (an Error named
 * `ProtocolError` with an integer `code`, the message and `data` as sent), or undefined for
 * anything else. Failures of the client itself carry a string code (`REQUEST_TIMEOUT`), system
 * errors too (`ECONNRESET`).
 */
function rpcErrorOf(error: unknown, code: unknown): UpstreamRpcError | undefined {
  if (!(error instanceof Error) || error.name !== "ProtocolError") return undefined;
  if (typeof code !== "number" || !Number.isSafeInteger(code)) return undefined;
  const data = (error as { data?: unknown }).data;
  return { code, message: error.message, ...(data !== undefined && { data }) };
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
