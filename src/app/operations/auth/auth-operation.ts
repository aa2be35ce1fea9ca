import type { z } from "zod";
import { GatewayError } from "../../../domain/errors.js";
import type { Operation } from "../../operation.js";
import type { AppServices } from "../../services.js";

/** The answer of every auth management operation while `auth.enabled` is false (spec 1: 503). */
export function requireAuthEnabled(services: {
  readonly settings: Pick<AppServices["settings"], "authEnabled">;
}): void {
  if (!services.settings.authEnabled) {
    throw new GatewayError(
      "AuthDisabledError",
      "Auth management is unavailable: authentication is disabled (auth.enabled is false)",
    );
  }
}

/**
 * An auth management operation: it answers 503 while authentication is off and runs for a global
 * admin only, whichever edge calls it (spec 2 §5: everything under `/auth`). It lists no permission:
 * the admin role is the requirement (`adminOnly`, decided by `admit`), so a custom role granting
 * `*:*` does not pass.
 */
export function defineAuthOperation<S extends z.ZodType, O>(
  operation: Omit<Operation<S, O>, "permissions">,
): Operation<S, O> {
  return {
    ...operation,
    permissions: [],
    adminOnly: true,
    async run(services, input, ctx) {
      requireAuthEnabled(services);
      return operation.run(services, input, ctx);
    },
  };
}
