import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { TOOL_EXPOSURES, type ToolExposure } from "../../app/catalog.js";
import type { RequestContext } from "../../app/context.js";
import { execute } from "../../app/execute.js";
import type { AppServices } from "../../app/services.js";
import { toolFailure, toolSuccess } from "./error-mapping.js";

export const SERVER_NAME = "airlock";

/** Tool listings, built once: JSON Schema of each exposure's parameters. */
const LISTED: Tool[] = TOOL_EXPOSURES.map(describe);
const BY_NAME = new Map<string, ToolExposure>(TOOL_EXPOSURES.map((t) => [t.name, t]));

function describe(exposure: ToolExposure): Tool {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(exposure.params, { io: "input" }) as Record<
    string,
    unknown
  >;
  return {
    name: exposure.name,
    description: exposure.description,
    inputSchema: { ...schema, type: "object" } as Tool["inputSchema"],
  };
}

/**
 * An MCP server exposing the `gateway_*` management tools (egress topology). One instance per
 * client session; `contextOf` tells who the session's caller is.
 */
export function createManagementServer(
  services: AppServices,
  contextOf: (signal: AbortSignal) => RequestContext,
): Server {
  const server = new Server(
    { name: SERVER_NAME, version: services.instance.version },
    { capabilities: { tools: { listChanged: false } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: LISTED }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    const exposure = BY_NAME.get(name);
    if (!exposure) throw new McpError(ErrorCode.MethodNotFound, `Unknown tool: ${name}`);
    const args = request.params.arguments ?? {};
    try {
      const input = exposure.toInput ? exposure.toInput(args) : args;
      const result = await execute(services, exposure.operation, input, contextOf(extra.signal));
      return toolSuccess(result);
    } catch (error) {
      if (!(error instanceof Error && "type" in error)) {
        services.logger.error({ tool: name, err: String(error) }, "management tool failed unexpectedly");
      }
      return toolFailure(name, error);
    }
  });
  return server;
}
