// MCP clients of the benchmark: through the gateway (streamable HTTP) and direct (stdio).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const CLIENT_INFO = { name: "airlock-bench", version: "1.0.0" };

/** Per-request timeout: far above any expected latency, so only a hung call trips it. */
const REQUEST_TIMEOUT_MS = 30_000;

/** The call of every scenario: one `add` of math, through `gateway_call`. */
export const GATEWAY_CALL = {
  name: "gateway_call",
  arguments: { calls: [{ mcp_server: "math", tool: "add", arguments: { a: 1, b: 2 } }] },
};

/**
 * Request options of one call. Each call gets its own AbortController: the SDK's HTTP client adds
 * an abort listener per request to the signal it is given, which leaks on a shared one (Node 20).
 */
function requestOptions() {
  return { signal: new AbortController().signal, timeout: REQUEST_TIMEOUT_MS };
}

/** One MCP session with the gateway's `/mcp` endpoint. */
export async function connectGateway(address) {
  const client = new Client(CLIENT_INFO);
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", address));
  await client.connect(transport);
  return {
    /** Calls a tool and parses the JSON payload of its first text block. */
    async tool(name, args) {
      const result = await client.callTool({ name, arguments: args }, undefined, requestOptions());
      return { isError: result.isError === true, payload: parsePayload(result) };
    },
    /** One `gateway_call` of add(1, 2); true when the batch says `success: true` and the sum is 3. */
    async add() {
      const result = await client.callTool(GATEWAY_CALL, undefined, requestOptions());
      const payload = result.isError === true ? null : parsePayload(result);
      return payload?.success === true && payload.results?.[0]?.result?.content?.[0]?.text === "3";
    },
    /** Ends the session (DELETE) and closes the transport. */
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

/** The example server spoken to directly over stdio, with no gateway between. */
export async function connectDirect(serverPath) {
  const client = new Client(CLIENT_INFO);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [serverPath],
    stderr: "ignore",
  });
  await client.connect(transport);
  return {
    /** add(1, 2); true when the result is not an error and says 3. */
    async add() {
      const result = await client.callTool(
        { name: "add", arguments: { a: 1, b: 2 } },
        undefined,
        requestOptions(),
      );
      return result.isError !== true && result.content?.[0]?.text === "3";
    },
    /** The upstream process's id. */
    pid: transport.pid,
    close: () => client.close(),
  };
}

function parsePayload(result) {
  const text = result.content?.[0]?.text;
  if (typeof text !== "string") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
