import { z } from "zod";
import { defineOperation } from "../operation.js";
import { notConfigured } from "./unavailable.js";

/**
 * `gateway_unload` (spec 2 §4): stops and removes a runtime server installed by `gateway_load`.
 * A declared or REST-registered server is left alone (`not_hot_loaded`).
 */
export const unloadServer = defineOperation({
  name: "unload-server",
  kind: "command",
  summary: "Stop and remove a runtime server installed with gateway_load.",
  permissions: ["mcp_servers:write"],
  input: z.strictObject({ mcp_server: z.string().min(1).describe("Runtime server id") }),
  async run({ hotLoading }, input) {
    if (hotLoading === undefined) throw notConfigured("hot loading");
    return hotLoading.unload(input.mcp_server);
  },
});
