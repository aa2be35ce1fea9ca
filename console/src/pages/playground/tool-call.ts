/**
 * One tool call from the console: `POST /api/tools/call`, as the signed-in principal (the session
 * cookie and its CSRF token), through the same admission, policies, approval holds and audit as a
 * `gateway_call` call (docs/rest-api.md "Calling a tool").
 */
import { ApiError, api } from "../../api.js";

/** The route the playground calls tools through, as `allowed_routes` names it. */
export const CALL_ROUTE = "POST /tools/call";

/** The largest per-call timeout (seconds): a call held for approval keeps waiting that long. */
export const CALL_TIMEOUT_S = 300;

/** A tool's answer (MCP `CallToolResult`), as the upstream sent it. */
export interface ToolResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  [field: string]: unknown;
}

/** What the call came to: the tool's result, or a failure in the gateway's words. */
export type CallOutcome =
  | { ok: true; result: ToolResult; elapsedMs: number }
  | { ok: false; message: string; errorType: string | null; result: ToolResult | null };

/** Calls `tool` of `server` (a server or a group) with `args`. */
export async function callTool(
  server: string,
  tool: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<CallOutcome> {
  const began = performance.now();
  try {
    const result = await api<ToolResult>(
      "POST",
      "/tools/call",
      { mcp_server: server, tool, arguments: args, timeout: CALL_TIMEOUT_S },
      signal,
    );
    if (result.isError) {
      return { ok: false, message: textOf(result) || "The tool answered an error", errorType: null, result };
    }
    return { ok: true, result, elapsedMs: Math.round(performance.now() - began) };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status === 0) throw error;
    return { ok: false, message: error.message, errorType: error.code || null, result: null };
  }
}

/** The text of a result's first text block. */
function textOf(result: ToolResult): string {
  const first = (result.content ?? [])[0] as { type?: string; text?: string } | undefined;
  return first?.type === "text" && typeof first.text === "string" ? first.text : "";
}
