import type { InitializeResult } from "@modelcontextprotocol/server";
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
  await adoptClient(transport, record);
  if (transport.sessionId !== record.session_id) throw new Error("the restored session took another id");
}

/**
 * Hands the server behind `transport` the initialization of a client that never sent one: a
 * session recorded elsewhere, or a stateless request (its `_meta` names the client). Answers what
 * the server declared.
 */
export function adoptClient(
  transport: SessionTransport,
  client: Pick<McpSessionRecord, "protocol_version" | "client_capabilities" | "client_info">,
): Promise<InitializeResult> {
  return transport.adopt({
    jsonrpc: "2.0",
    id: REPLAY_REQUEST_ID,
    method: "initialize",
    params: {
      protocolVersion: client.protocol_version,
      capabilities: client.client_capabilities,
      clientInfo: client.client_info as { name: string; version: string },
    },
  });
}
