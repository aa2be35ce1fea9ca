import { TOOL_EXPOSURES, type ToolExposure } from "../../app/catalog.js";
import type { RequestContext } from "../../app/context.js";
import type { ToolVisibilityServices } from "../../app/edge-services.js";
import { relayRequest } from "../../app/operations/relay-upstream.js";
import type { MaybePromise } from "../../domain/maybe-promise.js";

/**
 * The MCP edge's listings, filtered by `mayAdmit` (the decision `admit` makes, published by no
 * event): the management tools a front-door caller may call, and whether it is served upstream
 * tools, resources and prompts at all. Calls are admitted by `admit` itself.
 */

const FRONT_DOOR_TOOLS = TOOL_EXPOSURES.filter((tool) => tool.frontDoor);
const BY_NAME = new Map(TOOL_EXPOSURES.map((tool) => [tool.name, tool]));

/**
 * The management tools a caller sees on the front door: only those it may call, never
 * `gateway_call` or the continuation tools (the egress surface lists all 22 and refuses at call).
 */
export async function frontDoorManagementTools(
  services: ToolVisibilityServices,
  ctx: RequestContext,
): Promise<ToolExposure[]> {
  const allowed = await Promise.all(
    FRONT_DOOR_TOOLS.map((tool) =>
      services.operations.mayAdmit(tool.operation, ctx, { route: `mcp:${tool.name}` }),
    ),
  );
  return FRONT_DOOR_TOOLS.filter((_tool, index) => allowed[index]);
}

/** The management tool of that name the front door offers (to callers `admit` lets in), if any. */
export function frontDoorTool(name: string): ToolExposure | undefined {
  const tool = BY_NAME.get(name);
  return tool?.frontDoor ? tool : undefined;
}

/**
 * Whether upstream tools, resources and prompts are served to the caller on the front door, for
 * `method` (`tools/list`, `resources/list`, ...): the rule of the relay operations.
 */
export function mayUseUpstreams(
  services: ToolVisibilityServices,
  ctx: RequestContext,
  method: string,
): MaybePromise<boolean> {
  return services.operations.mayAdmit(relayRequest, ctx, { route: `mcp:${method}` });
}
