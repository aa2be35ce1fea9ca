import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type ClientInfo, createSessionClient, DEFAULT_CLIENT_INFO } from "./mcp-session-connection.js";
import {
  discoverStateless,
  type RevisionChoice,
  type StatelessUpstream,
  statelessEnvelope,
} from "./stateless-upstream.js";

/** A server that `mcp_revision: stateless` requires to offer the stateless revision did not. */
export class StatelessRefused extends Error {}

/** `mcp_revision` of a server's entry; `fallback` when absent. */
export function revisionChoice(
  options: Readonly<Record<string, unknown>> | undefined,
  fallback: RevisionChoice = "session",
): RevisionChoice {
  const chosen = options?.mcp_revision;
  return chosen === "session" || chosen === "stateless" || chosen === "auto" ? chosen : fallback;
}

/**
 * A client for the server behind `transport` (a child's pipes, a container's stream), at the
 * revision `revision` chooses: a session (`initialize`), or, asked first with `server/discover`,
 * the stateless revision the server offers (`stateless` requires it and rejects with
 * {@link StatelessRefused} otherwise; `auto` opens a session then, with a client of its own). The
 * transport must tolerate a second `start` while it runs: the probe's client starts it, the
 * session's client starts it again.
 */
export async function openAtRevision(
  transport: Transport,
  revision: RevisionChoice,
  clientInfo: ClientInfo | undefined,
  timeoutMs: number,
): Promise<{ client: Client; stateless?: StatelessUpstream | undefined }> {
  const client = createSessionClient(clientInfo);
  if (revision !== "session") {
    await Protocol.prototype.connect.call(client, transport);
    const envelope = statelessEnvelope(clientInfo ?? DEFAULT_CLIENT_INFO);
    const stateless = await discoverStateless(client, envelope, timeoutMs);
    if (stateless) return { client, stateless };
    if (revision === "stateless") {
      throw new StatelessRefused(
        "server/discover did not offer protocol revision 2026-07-28 (mcp_revision: stateless)",
      );
    }
    // The probe's client lets go of the transport: the session's client wires it anew.
    transport.onmessage = undefined;
    transport.onclose = undefined;
    transport.onerror = undefined;
  }
  const session = revision === "session" ? client : createSessionClient(clientInfo);
  await session.connect(transport, { timeout: timeoutMs });
  return { client: session };
}
