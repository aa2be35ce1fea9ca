import type { z } from "zod";
import { GatewayError } from "../../../domain/errors.js";
import type { RequestContext } from "../../context.js";
import type { Operation } from "../../operation.js";
import type { AppServices } from "../../services.js";

/** The answer of every auth management operation while `auth.enabled` is false (spec 1: 503). */
export function requireAuthEnabled(services: Pick<AppServices, "settings">): void {
  if (!services.settings.authEnabled) {
    throw new GatewayError(
      "AuthDisabledError",
      "Auth management is unavailable: authentication is disabled (auth.enabled is false)",
    );
  }
}

/**
 * Spec 2 §5: everything under `/auth` needs the admin role at global scope, with no carve-out: no
 * other role, however wide its grants, manages keys, roles or policies.
 */
async function requireAdmin(services: AppServices, ctx: RequestContext): Promise<void> {
  if (!ctx.authenticated) throw new GatewayError("AuthenticationError", "No valid credentials provided");
  if (!(await services.authorizer.isAdmin(ctx.principal))) {
    throw new GatewayError("AccessDeniedError", "admin role required", { role: "admin" });
  }
}

/**
 * An auth management operation: it answers 503 while authentication is off and runs for a global
 * admin only, whichever edge calls it. It lists no permission for `execute` to check: the admin role
 * is the requirement, checked here, so a custom role granting `*:*` does not pass.
 */
export function defineAuthOperation<S extends z.ZodType, O>(
  operation: Omit<Operation<S, O>, "permissions">,
): Operation<S, O> {
  return {
    ...operation,
    permissions: [],
    async run(services, input, ctx) {
      requireAuthEnabled(services);
      await requireAdmin(services, ctx);
      return operation.run(services, input, ctx);
    },
  };
}
