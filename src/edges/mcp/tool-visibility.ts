import { TOOL_EXPOSURES, type ToolExposure } from "../../app/catalog.js";
import type { RequestContext } from "../../app/context.js";
import type { AppServices } from "../../app/services.js";

/**
 * What a caller may call on the MCP surface. The one per-caller filter of the MCP edge: every
 * listing and call asks it.
 */
export interface CallerAccess {
  /** False when the caller proved no identity (stdio without `auth.stdio.principal`). */
  readonly identified: boolean;
  /**
   * Null when the caller may call the management tool (about `resourceId`, the server or group its
   * input names, when it names one); otherwise the permission it lacks.
   */
  missingFor(exposure: ToolExposure, resourceId?: string): Promise<string | null>;
  /**
   * Whether upstream tools, resources and prompts are served to the caller (front door), for `what`:
   * the upstream tool called, or the MCP method (`tools/list`, `resources/read`, ...).
   */
  mayUseUpstreams(what: string): Promise<boolean>;
}

/** Authentication off: every caller may call every tool (spec 2 §4 "Visibility"). */
export const UNRESTRICTED: CallerAccess = {
  identified: true,
  missingFor: async () => null,
  mayUseUpstreams: async () => true,
};

/** Upstream traffic through the front door needs what `gateway_call` needs. */
const UPSTREAM_PERMISSION = "tool:invoke";

/** The access of a caller: decided by its roles when authentication is on. */
export function callerAccess(services: AppServices, ctx: RequestContext): CallerAccess {
  const { settings, authorizer } = services;
  if (!settings.authEnabled) return UNRESTRICTED;
  // A stdio client is who `auth.stdio.principal` declares, or no one (spec 2 §4), whatever
  // `allow_anonymous` admits over HTTP.
  const identified = ctx.authenticated || (settings.allowAnonymous && ctx.channel !== "mcp-stdio");
  /** The policy engine's input names the tool or method as the route (`mcp:<name>`). */
  const allows = async (
    permissions: readonly string[],
    tenantAware: boolean,
    what: string,
    resourceId: string | null,
    forSomeId = false,
  ) => {
    if (!identified) return false;
    if (permissions.length === 0) return ctx.authenticated;
    const options = { tenantAware, route: `mcp:${what}`, resourceId, forSomeId };
    return (await authorizer.decide(ctx.principal, permissions, options)).allowed;
  };
  return {
    identified,
    async missingFor(exposure, resourceId) {
      const { permissions } = exposure.operation;
      const tenantAware = exposure.operation.tenantAware ?? false;
      const perResource = exposure.operation.checkedPerResource ?? false;
      if (await allows(permissions, tenantAware, exposure.name, resourceId ?? null, perResource)) return null;
      const ungranted = identified
        ? await authorizer.firstUngranted(ctx.principal, permissions, tenantAware)
        : undefined;
      // Named: the first permission the roles lack, else (the policy engine refused) the first listed.
      return ungranted ?? permissions[0] ?? "authentication";
    },
    mayUseUpstreams: (what) => allows([UPSTREAM_PERMISSION], false, what, null),
  };
}

const FRONT_DOOR_TOOLS = TOOL_EXPOSURES.filter((tool) => tool.frontDoor);
const BY_NAME = new Map(TOOL_EXPOSURES.map((tool) => [tool.name, tool]));

/**
 * The management tools a caller sees on the front door: only those it may call, never
 * `gateway_call` or the continuation tools (the egress surface lists all 22 and refuses at call).
 */
export async function frontDoorManagementTools(access: CallerAccess): Promise<ToolExposure[]> {
  const allowed = await Promise.all(
    FRONT_DOOR_TOOLS.map(async (tool) => (await access.missingFor(tool)) === null),
  );
  return FRONT_DOOR_TOOLS.filter((_tool, index) => allowed[index]);
}

/** The management tool of that name the front door lists for callers who may call it, if any. */
export function frontDoorTool(name: string): ToolExposure | undefined {
  const tool = BY_NAME.get(name);
  return tool?.frontDoor ? tool : undefined;
}

/** The permission front-door upstream traffic needs (tools, resources, prompts, ...). */
export const UPSTREAM_PERMISSIONS: readonly string[] = [UPSTREAM_PERMISSION];

/** The management tool a front-door call names, or undefined when it is unknown or hidden (-32601). */
export async function frontDoorManagementTool(
  access: CallerAccess,
  name: string,
): Promise<ToolExposure | undefined> {
  const tool = BY_NAME.get(name);
  if (!tool?.frontDoor) return undefined;
  return (await access.missingFor(tool)) === null ? tool : undefined;
}

/**
 * Why an egress caller may not call a management tool (spec 2 §4), or null when it may:
 * `Authentication required to call '<tool>'` for a caller without identity (stdio without a
 * principal), `Not authorized to call '<tool>': <permission> permission required` otherwise.
 */
export async function egressRefusal(
  access: CallerAccess,
  exposure: ToolExposure,
  resourceId: string | undefined,
): Promise<string | null> {
  if (!access.identified) return `Authentication required to call '${exposure.name}'`;
  const missing = await access.missingFor(exposure, resourceId);
  return missing === null
    ? null
    : `Not authorized to call '${exposure.name}': ${missing} permission required`;
}
