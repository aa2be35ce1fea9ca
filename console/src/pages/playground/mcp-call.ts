/**
 * One tool call from the console. The REST API has no route that runs a tool call: `gateway_call`
 * is served on the MCP endpoint only, which the console's session cookie does not authenticate
 * (docs/console.md). So the playground sends one stateless MCP request (revision 2026-07-28: no
 * `initialize`, no session) to `/mcp`, with a credential the operator types on the page, kept in
 * the page's memory only. In egress it calls `gateway_call` for the chosen server or group; on
 * the front door, which does not offer `gateway_call`, it calls the tool by its name.
 */

const REVISION = "2026-07-28";

/** `gateway_call`'s largest per-call timeout (seconds): a call held for approval keeps waiting. */
export const CALL_TIMEOUT_S = 300;

/** How the credential is sent: an API key in its header, anything else as a bearer token (a JWT). */
export interface Credential {
  secret: string;
  /** `auth.api_key.header_name` (default `X-API-Key`). */
  keyHeader: string;
}

/** A tool's answer (MCP `CallToolResult`), as the upstream sent it. */
export interface ToolResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  [field: string]: unknown;
}

/** What the call came to: the tool's result, or a failure in the gateway's words. */
export type CallOutcome =
  | { ok: true; result: ToolResult; elapsedMs: number | null; via: "gateway_call" | "front_door" }
  | {
      ok: false;
      message: string;
      errorType: string | null;
      result: ToolResult | null;
      via: "gateway_call" | "front_door";
    };

/** A refusal of the request itself (HTTP status or JSON-RPC error), in the gateway's words. */
export class McpError extends Error {
  constructor(
    message: string,
    readonly code: number | null,
  ) {
    super(message);
  }
}

/** `gateway_call`'s answer (docs/mcp-tools.md "gateway_call"). */
interface Batch {
  results?: {
    success: boolean;
    result: unknown;
    error: string | null;
    error_type: string | null;
    elapsed_ms: number;
    truncated?: boolean;
  }[];
  error?: string;
  validation_errors?: { index: number; field: string; message: string }[];
}

let nextId = 1;

/** Sends one stateless JSON-RPC request to `/mcp` and answers its `result`. */
async function request(
  method: string,
  params: Record<string, unknown>,
  name: string,
  credential: Credential | null,
  signal: AbortSignal,
): Promise<unknown> {
  const id = nextId++;
  const headers: Record<string, string> = {
    accept: "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": REVISION,
    "mcp-method": method,
    "mcp-name": headerText(name),
  };
  const secret = credential?.secret.trim();
  if (secret) {
    if (secret.startsWith("mcp_")) headers[credential?.keyHeader.trim() || "X-API-Key"] = secret;
    else headers.authorization = `Bearer ${secret}`;
  }
  const body = {
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": REVISION,
        "io.modelcontextprotocol/clientInfo": { name: "airlock-console", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  };
  let response: Response;
  try {
    response = await fetch("/mcp", {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      credentials: "omit",
      signal,
    });
  } catch (failure) {
    if (signal.aborted) throw new McpError("Cancelled", null);
    throw new McpError(`The gateway cannot be reached: ${String(failure)}`, null);
  }
  const text = await response.text();
  const message = messageFor(id, text, response.headers.get("content-type") ?? "");
  const error = (message?.error ?? null) as { code?: number; message?: string } | null;
  if (error && typeof error === "object") {
    throw new McpError(String(error.message ?? `HTTP ${response.status}`), error.code ?? null);
  }
  if (!response.ok || !message || !("result" in message)) {
    throw new McpError(flatError(message) ?? `HTTP ${response.status}`, null);
  }
  return message.result;
}

/** The answer to request `id`: a JSON body, or the matching `data:` line of an event stream. */
function messageFor(id: number, text: string, type: string): Record<string, unknown> | null {
  const parse = (value: string): Record<string, unknown> | null => {
    try {
      const parsed = JSON.parse(value) as unknown;
      return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  };
  if (!type.includes("text/event-stream")) return parse(text);
  for (const line of text.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const message = parse(line.slice(5).trim());
    if (message?.id === id) return message;
  }
  return null;
}

/** The gateway's flat error bodies: `{error, message}`, `{error, detail}`, `{error: '<text>'}`. */
function flatError(body: Record<string, unknown> | null): string | null {
  if (!body) return null;
  const text = body.message ?? body.detail ?? body.error;
  return typeof text === "string" ? text : null;
}

/** `Mcp-Name`: as it is when printable ASCII, else its `=?base64?...?=` form. */
function headerText(name: string): string {
  if (/^[\x20-\x7e]*$/.test(name)) return name;
  const bytes = new TextEncoder().encode(name);
  return `=?base64?${btoa(String.fromCharCode(...bytes))}?=`;
}

/** The text of a management tool's result (its JSON answer). */
function textOf(result: ToolResult): string {
  const first = (result.content ?? [])[0] as { type?: string; text?: string } | undefined;
  return first?.type === "text" && typeof first.text === "string" ? first.text : "";
}

/** Calls `tool` of `server` (a server or a group) with `args`. */
export async function callTool(
  server: string,
  tool: string,
  args: Record<string, unknown>,
  credential: Credential | null,
  signal: AbortSignal,
): Promise<CallOutcome> {
  let answer: ToolResult;
  try {
    answer = (await request(
      "tools/call",
      {
        name: "gateway_call",
        arguments: {
          calls: [{ mcp_server: server, tool, arguments: args }],
          timeout: CALL_TIMEOUT_S,
        },
      },
      "gateway_call",
      credential,
      signal,
    )) as ToolResult;
  } catch (failure) {
    // -32601: no `gateway_call` here, the front door. Its tools are called by their own names.
    if (failure instanceof McpError && failure.code === -32601)
      return callByName(tool, args, credential, signal);
    throw failure;
  }
  const text = textOf(answer);
  if (answer.isError) {
    return {
      ok: false,
      message: text || "The call was refused",
      errorType: null,
      result: null,
      via: "gateway_call",
    };
  }
  let batch: Batch;
  try {
    batch = JSON.parse(text) as Batch;
  } catch {
    throw new McpError(`gateway_call answered what is not JSON: ${text.slice(0, 200)}`, null);
  }
  if (batch.validation_errors?.length) {
    const message = batch.validation_errors.map((issue) => `${issue.field}: ${issue.message}`).join("; ");
    return { ok: false, message, errorType: batch.error ?? null, result: null, via: "gateway_call" };
  }
  const outcome = batch.results?.[0];
  if (!outcome) throw new McpError(batch.error ?? "gateway_call answered no result", null);
  const result = outcome.result && typeof outcome.result === "object" ? (outcome.result as ToolResult) : null;
  if (outcome.success && result)
    return { ok: true, result, elapsedMs: outcome.elapsed_ms, via: "gateway_call" };
  return {
    ok: false,
    message: outcome.error ?? "The call failed",
    errorType: outcome.error_type,
    result,
    via: "gateway_call",
  };
}

async function callByName(
  tool: string,
  args: Record<string, unknown>,
  credential: Credential | null,
  signal: AbortSignal,
): Promise<CallOutcome> {
  const result = (await request(
    "tools/call",
    { name: tool, arguments: args },
    tool,
    credential,
    signal,
  )) as ToolResult;
  if (result.isError) {
    return {
      ok: false,
      message: textOf(result) || "The tool answered an error",
      errorType: null,
      result,
      via: "front_door",
    };
  }
  return { ok: true, result, elapsedMs: null, via: "front_door" };
}
