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
import { execute, recordEdgeRefusal } from "../../app/execute.js";
import type { AppServices } from "../../app/services.js";
import { zodValidation } from "../../app/validation.js";
import { type ToolResultPayload, toolFailure, toolSuccess } from "./error-mapping.js";
import { checkParamHeaders } from "./param-headers.js";
import { callerAccess, egressRefusal } from "./tool-visibility.js";

export const SERVER_NAME = "airlock";

/** Tool listings, built once: JSON Schema of each exposure's parameters. */
const LISTED: Tool[] = TOOL_EXPOSURES.map(describe);
const BY_NAME = new Map<string, ToolExposure>(TOOL_EXPOSURES.map((t) => [t.name, t]));
const DESCRIBED = new Map<string, Tool>(LISTED.map((tool) => [tool.name, tool]));

/** The listing of a management tool: name, description and the JSON Schema of its parameters. */
export function listedTool(exposure: ToolExposure): Tool {
  return DESCRIBED.get(exposure.name) ?? describe(exposure);
}

/** Runs a management tool and shapes its outcome as MCP failure shapes 1 and 2 of spec 2 §4. */
export async function callManagementTool(
  services: AppServices,
  exposure: ToolExposure,
  args: Record<string, unknown>,
  ctx: RequestContext,
): Promise<ToolResultPayload> {
  try {
    // A tool whose parameters differ from its operation's input checks them first: what `toInput`
    // adds (gateway_tools' `start`) is not an argument the caller may give.
    if (exposure.toInput) {
      const checked = exposure.params.safeParse(args);
      if (!checked.success) throw zodValidation(checked.error);
    }
    const input = exposure.toInput ? exposure.toInput(args) : args;
    const resourceId = namedResource(args);
    return toolSuccess(
      await execute(services, exposure.operation, input, ctx, {
        rateLimitExempt: exposure.readOnly,
        route: `mcp:${exposure.name}`,
        ...(resourceId !== undefined && { resourceId }),
      }),
    );
  } catch (error) {
    if (!(error instanceof Error && "type" in error)) {
      services.logger.error(
        { tool: exposure.name, err: String(error) },
        "management tool failed unexpectedly",
      );
    }
    return toolFailure(exposure.name, error);
  }
}

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
    // `gateway_call` annotates no parameter: Mcp-Param-* headers never speak for the calls of a batch.
    checkParamHeaders(
      services,
      listedTool(exposure),
      request.params.arguments ?? {},
      extra.requestInfo?.headers,
    );
    const ctx = contextOf(extra.signal);
    const args = request.params.arguments ?? {};
    const refusal = await egressRefusal(callerAccess(services, ctx), exposure, namedResource(args));
    if (refusal !== null) {
      try {
        const input = exposure.toInput ? exposure.toInput(args) : args;
        recordEdgeRefusal(services, exposure.operation, input, ctx, `mcp:${exposure.name}`, refusal);
      } catch {
        // Arguments the operation cannot read name no invocation; the refusal stands.
      }
      return { content: [{ type: "text", text: refusal }], isError: true };
    }
    return callManagementTool(services, exposure, args, ctx);
  });
  return server;
}

/** The server or group a tool's arguments name, for the external policy engine's `resource_id`. */
function namedResource(args: Record<string, unknown>): string | undefined {
  const named = typeof args.mcp_server === "string" ? args.mcp_server : args.group;
  return typeof named === "string" && named !== "" ? named : undefined;
}
