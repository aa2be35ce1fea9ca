import { defineOperation } from "../../operation.js";
import { entryNotFound, entryRef } from "./catalog-entry-fields.js";
import { CATALOG_WRITE } from "./create-catalog-entry.js";

export const deleteCatalogEntry = defineOperation({
  name: "delete-catalog-entry",
  kind: "command",
  summary: "Remove an entry from the server catalog. Servers deployed from it stay registered.",
  permissions: CATALOG_WRITE,
  input: entryRef,
  async run({ repositories, bus }, input, ctx) {
    const removed = await repositories.catalog.delete(input.entry_id);
    if (!removed) throw entryNotFound(input.entry_id);
    bus.publish([
      {
        type: "CatalogEntryDeleted",
        entry_id: removed.entry_id,
        name: removed.name,
        deleted_by: ctx.principal.id,
      },
    ]);
    return { entry_id: removed.entry_id, deleted: true };
  },
});
