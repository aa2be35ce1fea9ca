import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

export type ToolResult = { content: { type: string; text?: string }[]; isError?: boolean };

/** An SDK client connected to the gateway's `/mcp` endpoint at `baseUrl`. */
export async function connectHttp(baseUrl: string): Promise<Client> {
  return connect(new StreamableHTTPClientTransport(new URL("/mcp", baseUrl)));
}

export async function connect(transport: Transport): Promise<Client> {
  const client = new Client({ name: "airlock-tests", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** Calls a management tool and parses its JSON text payload. */
export async function callJson(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  const text = result.content[0]?.text ?? "";
  return { isError: result.isError === true, text, json: result.isError ? null : JSON.parse(text) };
}

/** A bare `initialize` POST to `/mcp`, with extra headers, for tests of the HTTP layer itself. */
export function rawInitialize(baseUrl: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(new URL("/mcp", baseUrl), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
}

/** A raw POST of one JSON-RPC message to `/mcp` in session `sessionId` (protocol 2025-06-18). */
export function rawMcpPost(
  baseUrl: string,
  sessionId: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(new URL("/mcp", baseUrl), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}
