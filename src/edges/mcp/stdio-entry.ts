import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ANONYMOUS, type Principal, type RequestContext } from "../../app/context.js";
import type { AppServices } from "../../app/services.js";
import { createManagementServer } from "./management-server.js";

/**
 * Serves the MCP tool surface on this process's stdin/stdout. Resolves once the client hangs up.
 * Nothing else may write to stdout in this mode: logs go to stderr.
 */
export async function serveStdio(
  services: AppServices,
  sessionServer?: (key: string, contextOf: (signal: AbortSignal) => RequestContext) => Server,
  declared?: Principal,
): Promise<{ closed: Promise<void>; close: () => Promise<void> }> {
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
  const transport = new StdioServerTransport();
  // Set before `connect`, which keeps it and calls it first.
  transport.onerror = (error) => answerUnreadableLine(transport, error);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await server.connect(transport);
  return {
    closed,
    async close() {
      await server.close().catch(() => undefined);
      process.stdin.destroy();
    },
  };
}

/**
 * Answers a line the transport could not read, as JSON-RPC 2.0 asks (the id unknown, so null):
 * -32700 for a line that is not JSON, -32600 for JSON that is no JSON-RPC message (a batch array
 * among them: the MCP revisions this gateway speaks send one message per line). The SDK's stdio
 * transport only reports such lines; other errors (stdin itself) are not answered.
 */
function answerUnreadableLine(transport: StdioServerTransport, error: Error): void {
  const code = error instanceof SyntaxError ? -32700 : error.name === "ZodError" ? -32600 : null;
  if (code === null) return;
  const message = code === -32700 ? "Parse error" : "Invalid Request";
  void transport.send({ jsonrpc: "2.0", id: null, error: { code, message } } as never).catch(() => undefined);
}
