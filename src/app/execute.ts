import type { z } from "zod";
import { GatewayError } from "../domain/errors.js";
import type { RequestContext } from "./context.js";
import type { Operation } from "./operation.js";
import type { AppServices } from "./services.js";
import { zodValidation } from "./validation.js";

/**
 * The one pipeline every edge goes through: validate the input, authorize the caller, run.
 * Events are published by the fleet as state changes; rate limits and audit join here later, so
 * that no edge can skip them.
 */
export async function execute<S extends z.ZodType, O>(
  services: AppServices,
  operation: Operation<S, O>,
  rawInput: unknown,
  ctx: RequestContext,
): Promise<O> {
  const parsed = operation.input.safeParse(rawInput ?? {});
  if (!parsed.success) throw zodValidation(parsed.error);
  authorize(services, operation, ctx);
  return operation.run(services, parsed.data, ctx);
}

/**
 * With authentication off every caller may do everything (spec 2 §4 "Visibility"). With it on,
 * nothing is allowed until role-based authorization decides: deny by default.
 */
function authorize(services: AppServices, operation: Operation, ctx: RequestContext): void {
  if (!services.settings.authEnabled) return;
  const missing = operation.permissions[0];
  if (!ctx.authenticated) throw new GatewayError("AuthenticationError", "No valid credentials provided");
  if (missing) {
    throw new GatewayError("AccessDeniedError", `${missing} permission required`, { permission: missing });
  }
}
