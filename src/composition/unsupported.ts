import type { GatewayConfig } from "../config/schema.js";

/**
 * Settings this release validates but cannot honour yet. Refusing to start is safer than serving
 * something other than what the file asks for (authentication above all: deny by default).
 */
export function unsupportedSettings(config: GatewayConfig): string[] {
  const problems: string[] = [];
  if (config.auth.enabled) {
    problems.push(
      "auth.enabled: authentication is not available in this release; refusing to serve without it",
    );
  }
  return problems;
}
