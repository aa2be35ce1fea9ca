import { z } from "zod";
import { defineOperation } from "../operation.js";

/** Lines returned by default and the clamp range (spec 1 §4: out-of-range values are clamped). */
const DEFAULT_LINES = 100;
const MAX_LINES = 1000;

export const serverLogs = defineOperation({
  name: "server-logs",
  kind: "query",
  summary: "The last stderr lines of one MCP server.",
  permissions: ["mcp_servers:read"],
  input: z.object({
    mcp_server: z.string().min(1),
    // A missing, empty or non-numeric value means the default; numbers are clamped, not refused.
    lines: z
      .unknown()
      .transform((raw) => (raw === undefined || raw === null || raw === "" ? Number.NaN : Number(raw)))
      .transform((n) =>
        Number.isFinite(n) ? Math.min(MAX_LINES, Math.max(1, Math.trunc(n))) : DEFAULT_LINES,
      ),
  }),
  async run({ fleet }, input) {
    const server = fleet.require(input.mcp_server);
    const logs = server.logs.tail(input.lines).map((line) => ({ mcp_server_id: server.id, ...line }));
    return { logs, mcp_server_id: server.id, count: logs.length };
  },
});
