import { z } from "zod";
import { GatewayError } from "../../../domain/errors.js";
import type { CatalogEntry } from "../../../domain/server-catalog/catalog-entry.js";
import { defineOperation } from "../../operation.js";
import { zodValidation } from "../../validation.js";
import { missingFields, refuseMissing } from "../missing-fields.js";
import { REGISTRABLE_MODES, REQUIRED_BY_MODE, serverCommand } from "../register-server.js";
import { entryDescription, entryName, entryTags, entryView } from "./catalog-entry-fields.js";

/**
 * The body of `POST /catalog`. The fields a server is run by take the registration's rules
 * (`register-server.ts`); null is the same as absent for the optional ones (an entry read back
 * shows them null).
 */
const body = z
  .strictObject({
    name: entryName,
    description: entryDescription,
    mode: z.enum(REGISTRABLE_MODES).nullish(),
    command: serverCommand.nullish(),
    image: z.string().min(1).nullish(),
    endpoint: z.string().min(1).nullish(),
    tags: entryTags.nullish(),
  })
  .superRefine((entry, ctx) => {
    // An entry that names a mode carries what that mode runs, so that it can be deployed.
    if (!entry.mode) return;
    const needed = REQUIRED_BY_MODE[entry.mode];
    if (entry[needed] == null) {
      ctx.addIssue({ code: "custom", path: [needed], message: `is required when mode is ${entry.mode}` });
    }
  });

/**
 * Creating an entry needs what changing a server's configuration needs (decided: spec 2 §5 gives
 * the catalog routes no permission). An entry runs nothing: deploying one needs what registering a
 * server needs.
 */
export const CATALOG_WRITE = ["mcp_servers:write"] as const;

export const createCatalogEntry = defineOperation({
  name: "create-catalog-entry",
  kind: "command",
  summary: "Add an entry to the server catalog (kept in the durable store). Runs nothing.",
  permissions: CATALOG_WRITE,
  // Checked in `run` as registrations are: missing fields first (400 `missing_fields`), then the
  // fields' rules (422 naming each field), then the endpoint's SSRF policy (400 `ssrf_blocked`).
  input: z.record(z.string(), z.unknown()),
  async run({ repositories, endpointGuard, ids, clock, bus }, raw, ctx) {
    refuseMissing(missingFields(raw, ["name", "description"]));
    const parsed = body.safeParse(raw);
    if (!parsed.success) throw zodValidation(parsed.error);
    const input = parsed.data;
    // The registration's rule for an endpoint given through REST (spec 1 §4 rule 2), checked now
    // so that the catalog offers nothing a deployment would refuse; deploying checks it again.
    if (input.endpoint) await endpointGuard.assertAllowed(input.endpoint);
    const entry: CatalogEntry = {
      entry_id: ids.uuid(),
      name: input.name,
      description: input.description,
      mode: input.mode ?? null,
      command: input.command ?? null,
      image: input.image ?? null,
      endpoint: input.endpoint ?? null,
      tags: [...new Set(input.tags ?? [])],
      created_at: clock.now() / 1000,
      created_by: ctx.principal.id,
    };
    if (!(await repositories.catalog.create(entry))) {
      throw new GatewayError(
        "CatalogEntryAlreadyExistsError",
        `Catalog entry already exists: ${entry.name}`,
        {
          name: entry.name,
        },
      );
    }
    bus.publish([
      {
        type: "CatalogEntryCreated",
        entry_id: entry.entry_id,
        name: entry.name,
        created_by: entry.created_by,
      },
    ]);
    return entryView(entry);
  },
});
