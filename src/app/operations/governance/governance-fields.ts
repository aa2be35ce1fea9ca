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
  .default(null);

const NAME_RULE = "must be a non-empty string of at most 256 characters";

export const nameField = () =>
  z.string({ error: NAME_RULE }).min(1, { error: NAME_RULE }).max(256, { error: NAME_RULE });

/**
 * The tenant a withdrawal or restore acts on. A caller confined to a tenant (a tenant-scoped grant)
 * acts on its own tenant: an absent `tenant_id` means that tenant, another one is refused.
 */
export function tenantOf(requested: string | null, ctx: RequestContext): string | null {
  if (ctx.confinedTo === undefined) return requested;
  if (requested === null || requested === ctx.confinedTo) return ctx.confinedTo;
  throw new GatewayError(
    "AccessDeniedError",
    `a grant held at tenant scope acts on tenant '${ctx.confinedTo}' only`,
    {
      tenant_id: requested,
    },
  );
}
