import type { Client } from "@modelcontextprotocol/client";
import { localSessionEnds, McpSessionConnection } from "../session/mcp-session-connection.js";
import type { StatelessUpstream } from "../session/stateless-upstream.js";
import type { ChildProcessTransport } from "./child-process-transport.js";

/**
 * An initialized MCP session with one child process (see {@link ChildProcessTransport}); the
 * behaviour is {@link McpSessionConnection}'s.
 *
 * Guaranteed besides: every caller of `close()` resolves only once the child and its process group
 * are gone; `onClosed` fires when the child exits or the pipe breaks without `close()`, with the
 * exit reason (`process exited with code 3`), which calls in flight name too.
 */
export class SubprocessConnection extends McpSessionConnection {
  /** `stateless`: the child speaks revision 2026-07-28 (see `McpSessionConnection`). */
  constructor(
    client: Client,
    private readonly transport: ChildProcessTransport,
    stateless?: StatelessUpstream,
  ) {
    super(client, localSessionEnds(transport), stateless);
  }

  /** The child's pid (= its process group id), for diagnostics and tests. */
  get pid(): number | undefined {
    return this.transport.pid;
  }
}
