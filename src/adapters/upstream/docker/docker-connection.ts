import type { Client } from "@modelcontextprotocol/client";
import { localSessionEnds, McpSessionConnection } from "../session/mcp-session-connection.js";
import type { StatelessUpstream } from "../session/stateless-upstream.js";
import type { ContainerTransport } from "./container-transport.js";

/**
 * An initialized MCP session with one container (see {@link ContainerTransport}); the behaviour is
 * {@link McpSessionConnection}'s.
 *
 * Guaranteed besides: every caller of `close()` resolves only once the container is stopped and
 * removed; `onClosed` fires when the container exits or its stream breaks without `close()`, with
 * the reason (`container exited with code 3`), which calls in flight name too; the container is
 * then removed in the background (`removed` tells when).
 */
export class DockerConnection extends McpSessionConnection {
  constructor(
    client: Client,
    private readonly transport: ContainerTransport,
    /** The engine's id of the container, for diagnostics and tests. */
    readonly containerId: string,
    /** Set when the server speaks revision 2026-07-28 (see `McpSessionConnection`). */
    stateless?: StatelessUpstream,
  ) {
    super(client, localSessionEnds(transport), stateless);
  }

  /** Resolves once the container is removed, whether `close()` or its own exit ended it. */
  get removed(): Promise<void> {
    return this.transport.removed;
  }
}
