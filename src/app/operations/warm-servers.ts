import { z } from "zod";
import { defineOperation } from "../operation.js";

/** Longest error text kept per failed server in the warm report. */
const ERROR_CHARS = 100;

/**
 * `gateway_warm` (spec 2): starts the named servers, or with null every server but dead ones.
 * Groups are skipped: a group id named in the list is left out of every list of the answer (its
 * members may be named themselves); an id that is neither a server nor a group is `failed`.
 */
export const warmServers = defineOperation({
  name: "warm-servers",
  kind: "command",
  summary:
    "Start servers ahead of use: a comma-separated list of ids, or every server but dead ones (groups are skipped).",
  permissions: ["mcp_servers:lifecycle"],
  input: z.strictObject({
    mcp_servers: z
      .string()
      .nullish()
      .describe(
        "Comma-separated server ids (groups are skipped); null or absent warms every server except dead ones",
      ),
  }),
  async run({ fleet, groups }, input) {
    const requested = input.mcp_servers
      ?.split(",")
      .map((id) => id.trim())
      .filter(Boolean);
    const warmed: string[] = [];
    const already_warm: string[] = [];
    const skipped_dead: string[] = [];
    const failed: { id: string; error: string }[] = [];
    const targets = requested ?? fleet.list().map((s) => s.id);
    await Promise.all(
      targets.map(async (id) => {
        const server = fleet.get(id);
        if (!server) return groups.has(id) ? undefined : failed.push({ id, error: "McpServer not found" });
        if (server.connection && server.lifecycle.state === "ready") return already_warm.push(id);
        if (!requested && server.lifecycle.state === "dead") return skipped_dead.push(id);
        try {
          await fleet.start(server, true);
          warmed.push(id);
        } catch (error) {
          failed.push({ id, error: (error as Error).message.slice(0, ERROR_CHARS) });
        }
      }),
    );
    const summary =
      `Warmed ${warmed.length}, already warm ${already_warm.length}, ` +
      `skipped dead ${skipped_dead.length}, failed ${failed.length}`;
    return { warmed, already_warm, skipped_dead, failed, summary };
  },
});
