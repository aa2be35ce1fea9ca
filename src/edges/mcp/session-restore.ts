import type { McpSessionRecord } from "../../app/ports/mcp-session-repository.js";
import type { SessionTransport } from "./session-transport.js";

/** The id of the replayed initialize request; a string no SDK client generates (they count up). */
const REPLAY_REQUEST_ID = "airlock-session-restore";

/**
 * Brings a fresh transport, already connected to a fresh server, into the state the session had
 * after its initialization on another replica (or on this one before a restart): the client's
 * initialize request (negotiated protocol version, client info and capabilities from the record)
 * and its `initialized` notification are replayed, so the server holds the client's capabilities
 * exactly as if the client had initialized here.
 */
export async function replayInitialization(
  transport: SessionTransport,
  record: McpSessionRecord,
): Promise<void> {
  await transport.adopt({
    jsonrpc: "2.0",
    id: REPLAY_REQUEST_ID,
    method: "initialize",
    params: {
      protocolVersion: record.protocol_version,
      capabilities: record.client_capabilities,
      clientInfo: record.client_info as { name: string; version: string },
    },
  });
  if (transport.sessionId !== record.session_id) throw new Error("the restored session took another id");
}
