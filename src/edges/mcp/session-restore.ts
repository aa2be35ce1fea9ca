import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { McpSessionRecord } from "../../app/ports/mcp-session-repository.js";

/** The id of the replayed initialize request; a string no SDK client generates (they count up). */
const REPLAY_REQUEST_ID = "airlock-session-restore";

/**
 * The one place that reaches into the SDK's streamable HTTP transport (1.x), which keeps a
 * session's state (id, initialized flag) private and offers no way to adopt an existing session.
 *
 * Brings a fresh transport, already connected to a fresh server and created with
 * `sessionIdGenerator: () => record.session_id`, into the state the session had after its
 * initialization on another replica: it replays the client's initialize request (negotiated
 * protocol version, client info and capabilities from the record) and its `initialized`
 * notification through the transport's web-standard request handler, and discards the answers.
 * The server therefore holds the client's capabilities exactly as if the client had initialized
 * here. The Node transport wraps the web-standard one in the private `_webStandardTransport`; the
 * check below makes an SDK that changes this fail loudly (the caller answers 404-free 503).
 */
export async function replayInitialization(
  transport: StreamableHTTPServerTransport,
  record: McpSessionRecord,
): Promise<void> {
  const inner = (transport as unknown as { _webStandardTransport?: WebHandler })._webStandardTransport;
  if (typeof inner?.handleRequest !== "function") {
    throw new Error("this MCP SDK version offers no web-standard transport to restore a session into");
  }
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    inner.handleRequest(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify(body),
      }),
    );
  const initialize = await post({
    jsonrpc: "2.0",
    id: REPLAY_REQUEST_ID,
    method: "initialize",
    params: {
      protocolVersion: record.protocol_version,
      capabilities: record.client_capabilities,
      clientInfo: record.client_info,
    },
  });
  // The answer is an SSE stream that ends once the server answered: reading it to the end waits for
  // the server to have taken the client's capabilities.
  await initialize.text();
  if (initialize.status !== 200 || transport.sessionId !== record.session_id) {
    throw new Error(`replayed initialize answered ${initialize.status}`);
  }
  const initialized = await post(
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { "mcp-session-id": record.session_id, "mcp-protocol-version": record.protocol_version },
  );
  await initialized.text();
  if (initialized.status !== 202) throw new Error(`replayed initialized answered ${initialized.status}`);
}

interface WebHandler {
  handleRequest(request: Request): Promise<Response>;
}
