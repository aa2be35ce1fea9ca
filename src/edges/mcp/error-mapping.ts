import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { Logger } from "../../app/ports/logger.js";
import { GatewayError, INTERNAL_ERROR_MESSAGE } from "../../domain/errors.js";

/** A `tools/call` result as the SDK sends it. */
export interface ToolResultPayload {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  isError?: boolean;
}

/**
 * A management tool's success: the JSON payload as one text block. Not repeated as
 * `structuredContent`: that would double every response (a batch result carries upstream payloads).
 */
export function toolSuccess(payload: unknown): ToolResultPayload {
  return { content: [{ type: "text", text: JSON.stringify(payload) }] };
}

/*
 * The one mapping of errors onto MCP. Which shape an error takes is the catalogue's (`GatewayError.mcp`,
 * `GatewayError.rpcCode`, `domain/errors.ts`); this module only writes it, per place an error is
 * answered: a management tool's result, an upstream tool's result on the front door, a relayed
 * request's JSON-RPC error, and a request the HTTP endpoint refuses before any session handles it.
 */

/**
 * A management tool's failure, as the MCP failure shapes of spec 2 §4:
 * 1. the tool ran and failed: protocol success carrying `{error, error_type, details}`;
 * 2. refused before it ran (input, authorization, an unknown server id): `isError: true`,
 *    `Error executing tool <tool>: <reason>`;
 * anything outside the catalogue as shape 1 that names nothing. (3, JSON-RPC -32601 for an
 * unlisted tool, is raised by the tool router.) Throws the JSON-RPC error of an error that is one.
 */
export function toolFailure(tool: string, error: unknown): ToolResultPayload {
  if (!(error instanceof GatewayError)) return ranAndFailed(INTERNAL_ERROR_MESSAGE, "InternalServerError");
  switch (error.mcp) {
    case "refused":
      return refused(tool, refusalReason(error));
    case "internal":
      return ranAndFailed(INTERNAL_ERROR_MESSAGE, "InternalServerError");
    case "jsonrpc":
      throw jsonRpcError(error);
    case "ran_and_failed":
      if (error.type === "McpServerNotFoundError") return ranAndFailed(unknownServer(error), "ValueError");
      return ranAndFailed(error.message, error.type, error.details);
  }
}

/**
 * Why an egress caller may not call a management tool (spec 2 §4), from `admit`'s refusal:
 * `Authentication required to call '<tool>'` for a caller without identity (stdio without a
 * principal), `Not authorized to call '<tool>': <permission> permission required` otherwise.
 */
export function egressRefusal(tool: string, refusal: GatewayError): string {
  return refusal.type === "AuthenticationError"
    ? `Authentication required to call '${tool}'`
    : `Not authorized to call '${tool}': ${refusal.message}`;
}

/**
 * The answer to an upstream tool call on the front door that the gateway refused or failed: a tool
 * the caller is not shown (`unlisted`, or an error whose JSON-RPC code is -32601) as an unknown one
 * (spec 2 §4, shape 3); an upstream's own JSON-RPC error relayed as it sent it; any other catalogue
 * error as `isError: true` with one text block `<ErrorType>: <message>`. Anything else is thrown
 * on, for {@link relayFailure}.
 */
export function upstreamToolFailure(tool: string, error: unknown, unlisted: boolean): ToolResultPayload {
  if (!(error instanceof GatewayError) || error.upstream) throw error;
  if (unlisted || error.rpcCode === ProtocolErrorCode.MethodNotFound) {
    throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `Unknown tool: ${tool}`);
  }
  return { content: [{ type: "text", text: `${error.type}: ${error.message}` }], isError: true };
}

/**
 * The JSON-RPC error a relayed front-door request ends with. An upstream's own error passes
 * unchanged; a catalogue error with its own JSON-RPC code carries it, its message and details as
 * `data`; any other catalogue error is -32603 naming its type; anything else -32603 that names
 * nothing (and is logged).
 */
export function relayFailure(error: unknown, logger: Logger): Error {
  if (error instanceof ProtocolError) return error;
  if (error instanceof GatewayError) {
    const upstream = error.upstream;
    if (upstream) return new ProtocolError(upstream.code, upstream.message, upstream.data);
    if (error.mcp === "jsonrpc") return jsonRpcError(error);
    return new ProtocolError(ProtocolErrorCode.InternalError, `${error.type}: ${error.message}`, {
      error_type: error.type,
    });
  }
  logger.error({ err: String(error) }, "front door relay failed unexpectedly");
  return new ProtocolError(ProtocolErrorCode.InternalError, INTERNAL_ERROR_MESSAGE);
}

/**
 * A stateless request (MCP 2026-07-28) refused before any server saw it: the catalogue error's
 * status, and its JSON-RPC error (code, message, details as `data`) answering the request's id.
 */
export function statelessRefusal(error: GatewayError, id: string | number | null): TransportAnswer {
  const rpc = { code: error.rpcCode ?? ProtocolErrorCode.InternalError, message: error.message };
  return {
    status: error.status,
    headers: {},
    body: { jsonrpc: "2.0", id, error: error.details ? { ...rpc, data: error.details } : rpc },
  };
}

/** JSON-RPC code of a request the Streamable HTTP transport refuses itself (as the MCP SDK's does). */
export const TRANSPORT_REFUSAL = -32000;

/** An HTTP answer of the MCP endpoint: status, headers and a JSON-RPC error body. */
export interface TransportAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/**
 * A request the HTTP endpoint refuses before any session handles it (a session cap: 429; the store
 * away: 503): the error's status and a JSON-RPC error whose `data` names the error type and its
 * details (`details.cap` and `details.limit`, or `details.store` and `details.retry_after`), for
 * the request's id when it can be read, with `Retry-After` when the error knows when to come back.
 */
export function transportRefusal(error: GatewayError, id: string | number | null): TransportAnswer {
  const retryAfter = error.retryAfterS;
  return {
    status: error.status,
    headers: retryAfter === undefined ? {} : { "Retry-After": String(Math.ceil(retryAfter)) },
    body: {
      jsonrpc: "2.0",
      error: {
        code: TRANSPORT_REFUSAL,
        message: error.message,
        data: { error_type: error.type, details: error.details },
      },
      id,
    },
  };
}

/**
 * The JSON-RPC error of a catalogue error answered as one (`mcp: "jsonrpc"`): its code, its message
 * and its details as `data`. Thrown where the SDK answers the request (a refusal before any tool ran).
 */
export function jsonRpcError(error: GatewayError): ProtocolError {
  return new ProtocolError(
    error.rpcCode ?? ProtocolErrorCode.InternalError,
    error.message,
    error.details ?? undefined,
  );
}

/** Shape 1 says `isError: false` in so many words: written out, not left to the absent default. */
function ranAndFailed(message: string, type: string, details: Record<string, unknown> | null = null) {
  return { ...toolSuccess({ error: message, error_type: type, details: details ?? {} }), isError: false };
}

function refused(tool: string, reason: string): ToolResultPayload {
  return { content: [{ type: "text", text: `Error executing tool ${tool}: ${reason}` }], isError: true };
}

/** The `<reason>` of shape 2. */
function refusalReason(error: GatewayError): string {
  if (error.type === "McpServerNotFoundError") return unknownServer(error);
  const issues = error.details?.issues;
  if (error.type === "ValidationError" && Array.isArray(issues)) return invalidInput(issues);
  return error.message;
}

/** `unknown_mcp_server: <id>` (spec 2 §4), for a server or group id that names nothing. */
function unknownServer(error: GatewayError): string {
  return `unknown_mcp_server: ${error.subject ?? error.message.replace(/^(McpServer|Group) not found: /, "")}`;
}

/** `invalid_mcp_server_id: <rule>` for the id, `invalid_<field>: <rule>` for any other argument. */
function invalidInput(issues: readonly { field: string; rule: string }[]): string {
  return issues
    .map(({ field, rule }) => {
      const name = field === "mcp_server" ? "mcp_server_id" : field.replace(/\..*$/, "");
      return `invalid_${name}: ${field} ${rule}`;
    })
    .join("; ");
}
