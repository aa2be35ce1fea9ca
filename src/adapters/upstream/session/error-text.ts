import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";

/** JSON-RPC codes the failures of the client's own requests have always been named with. */
const LOCAL_FAILURE_CODES: Partial<Record<SdkErrorCode, number>> = {
  [SdkErrorCode.ConnectionClosed]: -32000,
  [SdkErrorCode.RequestTimeout]: -32001,
};

/**
 * The message of a failure, for a sentence about it (`initialize failed: <text>`): a JSON-RPC error
 * the upstream answered with as `MCP error <code>: <message as sent>`, and a request of the client
 * that timed out or lost its connection as `MCP error -32001: Request timed out` and
 * `MCP error -32000: Connection closed`, the wording these sentences have always carried; any
 * other Error's message; anything else as a string.
 */
export function errorText(error: unknown): string {
  if (error instanceof ProtocolError) return `MCP error ${error.code}: ${error.message}`;
  const local = error instanceof SdkError ? LOCAL_FAILURE_CODES[error.code] : undefined;
  if (local !== undefined) return `MCP error ${local}: ${(error as Error).message}`;
  return error instanceof Error ? error.message : String(error);
}
