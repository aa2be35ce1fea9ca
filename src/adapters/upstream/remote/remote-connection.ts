import {
  type Client,
  type SSEClientTransport,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import type { HttpClient } from "../../../app/ports/endpoint-guard.js";
import type { CallOptions, ToolCallResult } from "../../../app/ports/upstream.js";
import { McpSessionConnection } from "../session/mcp-session-connection.js";
import type { StatelessUpstream } from "../session/stateless-upstream.js";
import type { ConnectionWatch, RemoteTransportKind } from "./connection-watch.js";
import { requestFailure } from "./failure-messages.js";
import { withCallHeaders } from "./scoped-fetch.js";

/**
 * Longest wait for the server to answer the DELETE that ends a streamable HTTP session. A server
 * answers at once; past 2 s stopping goes on without the answer (the session expires there).
 */
export const TERMINATE_TIMEOUT_MS = 2_000;

export interface RemoteConnectionParts {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport | SSEClientTransport;
  readonly kind: RemoteTransportKind;
  readonly watch: ConnectionWatch;
  readonly http: HttpClient;
  /** `host:port` of the endpoint, for messages. */
  readonly host: string;
  readonly secrets: readonly string[];
  /** Set for an upstream of the stateless revision (see `McpSessionConnection`). */
  readonly stateless?: StatelessUpstream | undefined;
}

/**
 * An initialized MCP session with a remote server, over streamable HTTP or the old SSE transport;
 * the behaviour is {@link McpSessionConnection}'s.
 *
 * Guaranteed besides: `close()` ends a streamable HTTP session with a DELETE (bounded by
 * {@link TERMINATE_TIMEOUT_MS}) and resolves once every socket of the session is destroyed.
 * `onClosed` fires when the session ends without `close()` (see {@link ConnectionWatch} for what
 * counts), once the session is torn down. Calls also reject with an Error named `TimeoutError` past
 * `http.read_timeout_s` of silence. No message carries a credential.
 */
export class RemoteConnection extends McpSessionConnection {
  constructor(private readonly parts: RemoteConnectionParts) {
    super(
      parts.client,
      {
        ended: parts.watch.ended,
        beforeClose: (endedAlready) => {
          parts.watch.stop();
          return endedAlready ? undefined : terminate(parts.transport);
        },
        release: () => parts.http.close(),
        releaseBeforeAnnouncing: true,
        closedReason: (closeRequested) => (closeRequested ? "closed" : "connection lost"),
        describeFailure: (error, what) =>
          requestFailure(error, what, { host: parts.host, secrets: parts.secrets }),
      },
      parts.stateless,
    );
  }

  /**
   * The trace context goes in HTTP headers (`traceparent`, `tracestate`) and, as for every
   * upstream, in `_meta`, so both name the gateway's span (a client's own `_meta.traceparent` is
   * its parent, never passed on as it is).
   */
  override callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<ToolCallResult> {
    const { traceContext } = options;
    if (traceContext === undefined) return super.callTool(name, args, options);
    return withCallHeaders(traceContext, () => super.callTool(name, args, options));
  }

  /** Which transport the session uses (`auto` settles on one of them). */
  get transportKind(): RemoteTransportKind {
    return this.parts.kind;
  }

  /** The streamable HTTP session id, for diagnostics and tests. */
  get sessionId(): string | undefined {
    const transport = this.parts.transport;
    return transport instanceof StreamableHTTPClientTransport ? transport.sessionId : undefined;
  }
}

/** Ends a streamable HTTP session on the server (DELETE); the old SSE transport has nothing to end. */
async function terminate(transport: StreamableHTTPClientTransport | SSEClientTransport): Promise<void> {
  if (!(transport instanceof StreamableHTTPClientTransport)) return;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, TERMINATE_TIMEOUT_MS);
  });
  // A failed or slow DELETE changes nothing for us: the sockets are destroyed after it either way.
  await Promise.race([transport.terminateSession().catch(() => {}), bound]);
  clearTimeout(timer);
}
