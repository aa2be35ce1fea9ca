import type { z } from "zod";
import { GatewayError } from "../../domain/errors.js";
import { defineOperation, type Operation, type Permission } from "../operation.js";

/**
 * An operation whose feature this release does not serve yet: it validates its input like the
 * real one will, then answers `NotConfiguredError` naming the feature, so clients see the tool, its
 * parameters and a clear reason instead of an unknown tool.
 */
export function unavailable<S extends z.ZodObject>(
  name: string,
  feature: string,
  permissions: readonly Permission[],
  input: S,
): Operation<S, never> {
  return defineOperation({
    name,
    kind: "command",
    summary: `${feature}: not configured in this release.`,
    permissions,
    input,
    async run() {
      throw notConfigured(feature);
    },
  });
}

/** The answer of a feature that is not served, or turned off in the configuration. */
export function notConfigured(feature: string): GatewayError {
  return new GatewayError("NotConfiguredError", `${feature} is not configured`, { feature });
}
