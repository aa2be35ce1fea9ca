import { z } from "zod";
import { serverIdFromName } from "../../../domain/server-catalog/catalog-entry.js";
import { execute } from "../../execute.js";
import { defineOperation } from "../../operation.js";
import { REGISTERING_PERMISSIONS, registerServer } from "../register-server.js";
import { startServer } from "../start-server.js";
import { entryNotFound } from "./catalog-entry-fields.js";

/**
 * `POST /catalog/{entry_id}/deploy`: registers an MCP server from an entry, through the very
 * `register-server` operation `POST /mcp_servers` runs (its checks, permissions, rate-limit budget,
 * store write and events, and its answers to a refused registration), then records
 * `CatalogEntryDeployed` and, when asked, starts the server through `start-server`.
 *
 * The body's server fields are the registration's, handed to it unread: `mcp_server_id` (absent or
 * null: the entry's name made a server id, `serverIdFromName`), `env`, `idle_ttl_s`,
 * `health_check_interval_s`; `start` (default false) starts the server once registered.
 */
export const deployCatalogEntry = defineOperation({
  name: "deploy-catalog-entry",
  kind: "command",
  summary: "Register an MCP server from a catalog entry (as POST /mcp_servers does), and start it if asked.",
  // What registering needs; starting needs `mcp_servers:lifecycle`, which is among them.
  permissions: REGISTERING_PERMISSIONS,
  // The registration and the start it runs charge their own budgets (`register-server`, `start`),
  // as they do when asked for directly: a deployment is not charged a third time.
  rateLimitExempt: true,
  input: z.strictObject({
    entry_id: z.string().min(1),
    mcp_server_id: z.unknown().optional(),
    start: z.boolean().default(false),
    env: z.unknown().optional(),
    idle_ttl_s: z.unknown().optional(),
    health_check_interval_s: z.unknown().optional(),
  }),
  async run(services, input, ctx) {
    const entry = await services.repositories.catalog.get(input.entry_id);
    if (!entry) throw entryNotFound(input.entry_id);
    const { entry_id: _entry, start, mcp_server_id, ...settings } = input;
    const registration = {
      mcp_server_id: mcp_server_id ?? serverIdFromName(entry.name, entry.entry_id),
      ...(entry.mode !== null && { mode: entry.mode }),
      ...(entry.command !== null && { command: [...entry.command] }),
      ...(entry.image !== null && { image: entry.image }),
      ...(entry.endpoint !== null && { endpoint: entry.endpoint }),
      description: entry.description,
      ...Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)),
    };
    const target = typeof registration.mcp_server_id === "string" ? registration.mcp_server_id : undefined;
    const registered = await execute(services, registerServer, registration, ctx, { resourceId: target });
    services.bus.publish([
      {
        type: "CatalogEntryDeployed",
        entry_id: entry.entry_id,
        name: entry.name,
        mcp_server_id: registered.mcp_server_id,
        deployed_by: ctx.principal.id,
      },
    ]);
    const started = start
      ? await execute(services, startServer, { mcp_server: registered.mcp_server_id }, ctx, {
          resourceId: registered.mcp_server_id,
        })
      : null;
    return { ...registered, entry_id: entry.entry_id, started };
  },
});
