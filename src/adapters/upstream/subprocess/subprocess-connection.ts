import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { localSessionEnds, McpSessionConnection } from "../session/mcp-session-connection.js";
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
  constructor(
    client: Client,
    private readonly transport: ChildProcessTransport,
  ) {
    super(client, localSessionEnds(transport));
  }

  /** The child's pid (= its process group id), for diagnostics and tests. */
  get pid(): number | undefined {
    return this.transport.pid;
  }
}
