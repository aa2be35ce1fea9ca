import { z } from "zod";
import { defineOperation } from "../operation.js";
import { clampedInteger } from "./clamped-integer.js";

/** Lines returned by default and the clamp range (spec 1 §4: out-of-range values are clamped). */
const DEFAULT_LINES = 100;
const MAX_LINES = 1000;

export const serverLogs = defineOperation({
  name: "server-logs",
  kind: "query",
  summary: "The last stderr lines of one MCP server.",
  permissions: ["mcp_servers:read"],
  input: z.strictObject({
    mcp_server: z.string().min(1),
    lines: clampedInteger(DEFAULT_LINES, 1, MAX_LINES),
  }),
  async run({ fleet }, input) {
    const server = fleet.require(input.mcp_server);
    const logs = server.logs.tail(input.lines).map((line) => ({ mcp_server_id: server.id, ...line }));
    return { logs, mcp_server_id: server.id, count: logs.length };
  },
});
