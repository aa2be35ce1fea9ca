import { TOOL_EXPOSURES, type ToolExposure } from "../../app/catalog.js";

/**
 * What a caller may call among the management tools. The one per-caller filter of the MCP surface:
 * role-based authorization plugs in here.
 */
export interface CallerAccess {
  mayCall(exposure: ToolExposure): boolean;
}

/** Authentication off: every caller may call every tool (spec 2 §4 "Visibility"). */
export const UNRESTRICTED: CallerAccess = { mayCall: () => true };

const FRONT_DOOR_TOOLS = TOOL_EXPOSURES.filter((tool) => tool.frontDoor);
const BY_NAME = new Map(TOOL_EXPOSURES.map((tool) => [tool.name, tool]));

/**
 * The management tools a caller sees on the front door: only those it may call, never
 * `gateway_call` or the continuation tools (the egress surface lists all 22 and refuses at call).
 */
export function frontDoorManagementTools(access: CallerAccess): ToolExposure[] {
  return FRONT_DOOR_TOOLS.filter((tool) => access.mayCall(tool));
}

/** The management tool a front-door call names, or undefined when it is unknown or hidden (-32601). */
export function frontDoorManagementTool(access: CallerAccess, name: string): ToolExposure | undefined {
  const tool = BY_NAME.get(name);
  return tool?.frontDoor && access.mayCall(tool) ? tool : undefined;
}
