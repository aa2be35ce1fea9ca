import { z } from "zod";
import type { ServerSpec } from "../../domain/server/server-spec.js";
import { defineOperation } from "../operation.js";
import { envMap, healthInterval, idleTtl, REGISTERING_PERMISSIONS } from "./register-server.js";

export const updateServer = defineOperation({
  name: "update-server",
  kind: "command",
  summary:
    "Update description, env (replaced whole), idle_ttl_s or health_check_interval_s of a server. " +
    "A running server keeps running; a changed env applies at its next start.",
  permissions: ["mcp_servers:write"],
  input: z.strictObject({
    mcp_server: z.string().min(1),
    description: z.string().optional(),
    env: envMap.optional(),
    idle_ttl_s: idleTtl.optional(),
    health_check_interval_s: healthInterval.optional(),
  }),
  // The environment decides what a started server runs (`NODE_OPTIONS`, `LD_PRELOAD`, ...): changing
  // it takes what registering takes.
  permissionsFor: (input) => (input.env !== undefined ? REGISTERING_PERMISSIONS : []),
  async run({ fleet, repositories, clock }, input) {
    return fleet.exclusive(input.mcp_server, async () => {
      const server = fleet.require(input.mcp_server);
      const { mcp_server: _id, ...changes } = input;
      const patch: Partial<ServerSpec> = {};
      for (const [key, value] of Object.entries(changes)) {
        if (value !== undefined) Object.assign(patch, { [key]: value });
      }
      // Servers registered through REST keep their settings across restarts; declared ones are
      // changed for this run only (the configuration file stays their source).
      if (server.spec.source === "api") {
        await repositories.serverConfigs.save({ ...server.spec, ...patch }, clock.now() / 1000);
      }
      fleet.amend(server, patch);
      return { mcp_server_id: server.id, updated: true };
    });
  },
});
