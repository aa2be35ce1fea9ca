import { ProtocolError, ProtocolErrorCode, type Server, type Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import { TOOL_EXPOSURES, type ToolExposure } from "../../app/catalog.js";
import type { RequestContext } from "../../app/context.js";
import type { ManagementServerServices } from "../../app/edge-services.js";
import { zodValidation } from "../../app/validation.js";
import { GatewayError } from "../../domain/errors.js";
import { egressRefusal, type ToolResultPayload, toolFailure, toolSuccess } from "./error-mapping.js";
import { GatewayServer, requestHeaders } from "./gateway-server.js";
import { lazySchemaValidator } from "./lazy-schema-validator.js";
import { checkParamHeaders } from "./param-headers.js";

export const SERVER_NAME = "airlock";

/** Tool listings, built once: JSON Schema of each exposure's parameters. */
const LISTED: Tool[] = TOOL_EXPOSURES.map(describe);
const BY_NAME = new Map<string, ToolExposure>(TOOL_EXPOSURES.map((t) => [t.name, t]));
const DESCRIBED = new Map<string, Tool>(LISTED.map((tool) => [tool.name, tool]));

/** The listing of a management tool: name, description and the JSON Schema of its parameters. */
export function listedTool(exposure: ToolExposure): Tool {
  return DESCRIBED.get(exposure.name) ?? describe(exposure);
}

/**
 * Runs a management tool and shapes its outcome as MCP failure shapes 1 and 2 of spec 2 §4. `ctx`
 * is what `admit` answered for the tool's operation (see {@link admitTool}).
 */
export async function callManagementTool(
  services: ManagementServerServices,
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
      await services.operations.execute(exposure.operation, input, ctx, {
        rateLimitExempt: exposure.readOnly,
        route: `mcp:${exposure.name}`,
        ...(resourceId !== undefined && { resourceId }),
        admitted: true,
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
  services: ManagementServerServices,
  contextOf: (signal: AbortSignal) => RequestContext,
): Server {
  const server = new GatewayServer(
    { name: SERVER_NAME, version: services.instance.version },
    { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: lazySchemaValidator() },
  );
  server.tracer = services.tracer;
  server.setRequestHandler("tools/list", async () => ({ tools: LISTED }));
  server.setRequestHandler("tools/call", async ({ params }, ctx) => {
    const name = params.name;
    const exposure = BY_NAME.get(name);
    if (!exposure) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `Unknown tool: ${name}`);
    // `gateway_call` annotates no parameter: Mcp-Param-* headers never speak for the calls of a batch.
    checkParamHeaders(
      services,
      listedTool(exposure),
      params.arguments ?? {},
      requestHeaders(server, ctx.mcpReq.id),
    );
    const args = params.arguments ?? {};
    let admitted: RequestContext;
    try {
      // Admitted before its arguments are read: a caller who may not call the tool learns that first.
      admitted = await admitTool(services, exposure, args, contextOf(ctx.mcpReq.signal));
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      return { content: [{ type: "text", text: egressRefusal(exposure.name, error) }], isError: true };
    }
    return callManagementTool(services, exposure, args, admitted);
  });
  return server;
}

/**
 * `admit` for a management tool call, its arguments not yet validated: the tool's operation, named
 * `mcp:<tool>` with the server or group the arguments name; a refusal records the invocations the
 * arguments name (gateway_call's calls) as refused.
 */
export function admitTool(
  services: ManagementServerServices,
  exposure: ToolExposure,
  args: Record<string, unknown>,
  ctx: RequestContext,
) {
  const resourceId = namedResource(args);
  const target = { route: `mcp:${exposure.name}`, resourceId };
  return services.operations.admit(
    exposure.operation,
    ctx,
    target,
    exposure.toInput ? exposure.toInput(args) : args,
    true,
  );
}

/** The server or group a tool's arguments name, for the external policy engine's `resource_id`. */
function namedResource(args: Record<string, unknown>): string | undefined {
  const named = typeof args.mcp_server === "string" ? args.mcp_server : args.group;
  return typeof named === "string" && named !== "" ? named : undefined;
}
