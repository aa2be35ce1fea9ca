import type { Server } from "@modelcontextprotocol/server";
import { ANONYMOUS, type Principal, type RequestContext } from "../../app/context.js";
import type { StdioServices } from "../../app/edge-services.js";
import { createManagementServer } from "./management-server.js";
import { StdioTransport } from "./stdio-transport.js";

/**
 * Serves the MCP tool surface on this process's stdin/stdout. Resolves once the client hangs up.
 * Nothing else may write to stdout in this mode: logs go to stderr.
 */
export async function serveStdio(
  services: StdioServices,
  /** Deepest nesting of a message (`http.max_json_depth`, one limit for every transport). */
  maxJsonDepth: number,
  sessionServer?: (key: string, contextOf: (signal: AbortSignal) => RequestContext) => Server,
  declared?: Principal,
): Promise<{
  closed: Promise<void>;
  stopReading: () => void;
  drained: () => Promise<void>;
  close: () => Promise<void>;
}> {
  // `auth.stdio.principal` declares who the stdio client is, without verification; without it
  // the client has no identity (spec 2 §4: with auth on, management tools are refused).
  const contextOf = (signal: AbortSignal): RequestContext => ({
    principal: declared ?? ANONYMOUS,
    authenticated: declared !== undefined,
    channel: "mcp-stdio",
    signal,
  });
  const server = sessionServer
    ? sessionServer("stdio", contextOf)
    : createManagementServer(services, contextOf);
  const transport = new StdioTransport({ maxJsonDepth });
  const closed = new Promise<void>((resolve) => {
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      resolve();
    };
    void transport.ended.then(resolve);
  });
  await server.connect(transport);
  return {
    closed,
    stopReading: () => transport.stopReading(),
    drained: () => transport.drained(),
    async close() {
      await server.close().catch(() => undefined);
      process.stdin.destroy();
    },
  };
}
