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

/**
 * The one mapping of errors onto the MCP failure shapes (spec 2 §4):
 * 1. the tool ran and failed: protocol success carrying `{error, error_type, details}`;
 * 2. refused before it ran (input, authorization): `isError: true`, `Error executing tool <tool>: <reason>`.
 * (3, JSON-RPC -32601 for an unlisted tool, is raised by the tool router.)
 */
export function toolFailure(tool: string, error: unknown): ToolResultPayload {
  if (error instanceof GatewayError) {
    if (error.type === "ValidationError" && error.details?.issues) return refused(tool, invalidInput(error));
    if (error.type === "AuthenticationError" || error.type === "AccessDeniedError") {
      return refused(tool, error.message);
    }
    if (error.type === "McpServerNotFoundError") {
      return ranAndFailed(
        `unknown_mcp_server: ${error.message.replace(/^(McpServer|Group) not found: /, "")}`,
        "ValueError",
      );
    }
    return ranAndFailed(error.message, error.type, error.details);
  }
  return ranAndFailed(INTERNAL_ERROR_MESSAGE, "InternalServerError");
}

/** Shape 1 says `isError: false` in so many words: written out, not left to the absent default. */
function ranAndFailed(message: string, type: string, details: Record<string, unknown> | null = null) {
  return { ...toolSuccess({ error: message, error_type: type, details: details ?? {} }), isError: false };
}

function refused(tool: string, reason: string): ToolResultPayload {
  return { content: [{ type: "text", text: `Error executing tool ${tool}: ${reason}` }], isError: true };
}

/** `invalid_mcp_server_id: <rule>` for the id, `invalid_<field>: <rule>` for any other argument. */
function invalidInput(error: GatewayError): string {
  const issues = error.details?.issues as { field: string; rule: string }[];
  return issues
    .map(({ field, rule }) => {
      const name = field === "mcp_server" ? "mcp_server_id" : field.replace(/\..*$/, "");
      return `invalid_${name}: ${field} ${rule}`;
    })
    .join("; ");
}
