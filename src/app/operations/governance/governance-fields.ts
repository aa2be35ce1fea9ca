import { z } from "zod";
import { GatewayError } from "../../../domain/errors.js";
import type { RequestContext } from "../../context.js";
import type { Governance } from "../../governance/governance.js";
import type { AppServices } from "../../services.js";

/** The governance service, or `NotConfiguredError` when the gateway was wired without it. */
export function requireGovernance(services: Pick<AppServices, "governance">): Governance {
  if (!services.governance)
    throw new GatewayError("NotConfiguredError", "governance is not configured", { feature: "governance" });
  return services.governance;
}

const TENANT_RULE = "must be a non-empty string of at most 256 characters, or null (every tenant)";

/** `tenant_id` of a withdrawal or a restore: absent or null means every tenant. */
export const tenantIdField = z
  .string({ error: TENANT_RULE })
  .min(1, { error: TENANT_RULE })
  .max(256, { error: TENANT_RULE })
  .nullable()
  .optional();

const NAME_RULE = "must be a non-empty string of at most 256 characters";

export const nameField = () =>
  z.string({ error: NAME_RULE }).min(1, { error: NAME_RULE }).max(256, { error: NAME_RULE });

/**
 * The tenant a withdrawal or restore acts on: `tenant_id` as given, null (every tenant) when absent.
 * A caller confined to a tenant (a tenant-scoped grant) acts on its own tenant only: an absent
 * `tenant_id` means that tenant; another one, or an explicit null (every tenant), is refused.
 */
export function tenantOf(requested: string | null | undefined, ctx: RequestContext): string | null {
  if (ctx.confinedTo === undefined) return requested ?? null;
  if (requested === undefined || requested === ctx.confinedTo) return ctx.confinedTo;
  throw new GatewayError(
    "AccessDeniedError",
    `a grant held at tenant scope acts on tenant '${ctx.confinedTo}' only`,
    { tenant_id: requested },
  );
}
