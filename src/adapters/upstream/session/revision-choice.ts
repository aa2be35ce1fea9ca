import { type Client, Protocol, type Transport } from "@modelcontextprotocol/client";
import { DirectRequests } from "./direct-requests.js";
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
 * Wires `client` to `transport` and starts it, without `initialize` and without the era the SDK's
 * `Client.connect` would settle: what a stateless upstream's client needs (the requests go through
 * the direct lane; the client only hears what the upstream sends by itself).
 */
export function attachWithoutHandshake(client: Client, transport: Transport): Promise<void> {
  return Protocol.prototype.connect.call(client, transport);
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
    await attachWithoutHandshake(client, transport);
    const envelope = statelessEnvelope(clientInfo ?? DEFAULT_CLIENT_INFO);
    const stateless = await probe(transport, envelope, timeoutMs);
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

/** First request id of a client, the probe's: what the client it stands in for would have used. */
const PROBE_REQUEST_ID = 0;

/**
 * `server/discover` on a started transport through a lane of its own, which reads the answer
 * before the client wired to the transport (the client hears everything else, as it would).
 */
async function probe(
  transport: Transport,
  envelope: Readonly<Record<string, unknown>>,
  timeoutMs: number,
): Promise<StatelessUpstream | undefined> {
  const lane = new DirectRequests(transport, () => PROBE_REQUEST_ID);
  const deliver = transport.onmessage;
  const closed = transport.onclose;
  transport.onmessage = (message, extra) => {
    if (!lane.take(message)) deliver?.call(transport, message, extra);
  };
  transport.onclose = () => {
    lane.close();
    closed?.call(transport);
  };
  try {
    return await discoverStateless(lane, envelope, timeoutMs);
  } finally {
    transport.onmessage = deliver;
    transport.onclose = closed;
  }
}
