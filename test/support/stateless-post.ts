/** The stateless revision of MCP. */
export const STATELESS_REVISION = "2026-07-28";

/** A stateless request's `_meta` envelope, declaring `capabilities` (none by default). */
export function envelope(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": STATELESS_REVISION,
    "io.modelcontextprotocol/clientInfo": { name: "stateless-tests", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
}

export interface StatelessAnswer {
  status: number;
  headers: Headers;
  body: {
    id?: unknown;
    result?: Record<string, unknown> & {
      inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>;
      requestState?: string;
    };
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
}

export interface StatelessPostOptions {
  /** Headers added, or removed (null), after the standard ones. */
  headers?: Record<string, string | null>;
  /** The `_meta` sent; the envelope without capabilities by default. */
  meta?: Record<string, unknown>;
  id?: number;
}

/**
 * One stateless POST to `baseUrl`'s `/mcp`: the body's `_meta` and the standard headers
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` from the name, URI or task id) agree unless `headers`
 * says otherwise. The answer's body is read whole (an SSE answer is left to the caller's text).
 */
export async function statelessPost(
  baseUrl: string,
  method: string,
  params: Record<string, unknown> = {},
  options: StatelessPostOptions = {},
): Promise<StatelessAnswer> {
  const name = params.name ?? params.uri ?? params.taskId;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": STATELESS_REVISION,
    "mcp-method": method,
    ...(typeof name === "string" && { "mcp-name": name }),
  };
  for (const [key, value] of Object.entries(options.headers ?? {})) {
    if (value === null) delete headers[key.toLowerCase()];
    else headers[key.toLowerCase()] = value;
  }
  const res = await fetch(new URL("/mcp", baseUrl), {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: options.id ?? 7,
      method,
      params: { ...params, _meta: options.meta ?? envelope() },
    }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : {} };
}
