import { z } from "zod";
import { defineOperation } from "../operation.js";
import { refusingConfigPath } from "./config-path.js";
import { notConfigured } from "./unavailable.js";

/** The parameters as advertised to MCP clients. */
export const reloadConfigParams = z.strictObject({
  graceful: z.boolean().default(true).describe("Recorded on the reload request event"),
});

/**
 * Reloads the configuration file the gateway was started with (spec 2 §3): added servers are
 * registered cold, removed ones stopped then removed, modified ones stopped and registered again
 * cold; policies and group weights apply without restart. A refused reload changes nothing and
 * fails with `Configuration reload failed: <reason>`. `graceful` is recorded on the request event;
 * both values stop removed and modified servers at once.
 */
export const reloadConfig = defineOperation({
  name: "reload-config",
  kind: "command",
  summary: "Reload the configuration file the gateway was started with.",
  permissions: ["config:reload"],
  // `config_path` is read only to be refused: a reload always reads the file it was started with.
  input: refusingConfigPath(reloadConfigParams),
  async run({ reloader }, input, ctx) {
    if (!reloader) throw notConfigured("configuration reload");
    const outcome = await reloader.reload({ graceful: input.graceful, requestedBy: ctx.principal.id });
    const counts = [
      `${outcome.mcp_servers_added.length} added`,
      `${outcome.mcp_servers_removed.length} removed`,
      `${outcome.mcp_servers_updated.length} updated`,
      `${outcome.mcp_servers_unchanged.length} unchanged`,
    ].join(", ");
    return {
      status: "success" as const,
      message: `Configuration reloaded from ${outcome.config_path}: ${counts}`,
      config_path: outcome.config_path,
      mcp_servers_added: outcome.mcp_servers_added,
      mcp_servers_removed: outcome.mcp_servers_removed,
      mcp_servers_updated: outcome.mcp_servers_updated,
      mcp_servers_unchanged: outcome.mcp_servers_unchanged,
      duration_ms: outcome.duration_ms,
      ...(outcome.restart_required.length > 0 && { restart_required: outcome.restart_required }),
    };
  },
});
