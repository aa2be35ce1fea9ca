import { z } from "zod";
import type { ServerState } from "../../domain/server/lifecycle.js";
import { instanceCoordinates } from "../coordination/instance-coordinates.js";
import { defineOperation } from "../operation.js";

export const systemInfo = defineOperation({
  name: "system-info",
  kind: "query",
  summary: "Fleet totals, uptime, version and the facts of the answering replica.",
  permissions: [],
  input: z.strictObject({}),
  async run({ fleet, instance, clock }) {
    const servers = fleet.list();
    // Only states that some server is in, as the reference implementation reports them.
    const by_state: Partial<Record<ServerState, number>> = {};
    let total_tools = 0;
    let total_invocations = 0;
    let total_failures = 0;
    for (const server of servers) {
      by_state[server.lifecycle.state] = (by_state[server.lifecycle.state] ?? 0) + 1;
      total_tools += server.tools?.length ?? 0;
      total_invocations += server.stats.total_invocations;
      total_failures += server.stats.total_failures;
    }
    return {
      system: {
        total_mcp_servers: servers.length,
        mcp_servers_by_state: by_state,
        total_tools,
        total_invocations,
        total_failures,
        overall_success_rate:
          total_invocations === 0
            ? 1
            : Math.round(((total_invocations - total_failures) / total_invocations) * 1000) / 1000,
        uptime_seconds: (clock.monotonic() - instance.started_mono) / 1000,
        version: instance.version,
        instance: instanceCoordinates(instance),
      },
    };
  },
});
