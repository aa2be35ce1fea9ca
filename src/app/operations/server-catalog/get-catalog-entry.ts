import { defineOperation } from "../../operation.js";
import { entryNotFound, entryRef, entryView } from "./catalog-entry-fields.js";

export const getCatalogEntry = defineOperation({
  name: "get-catalog-entry",
  kind: "query",
  summary: "One entry of the server catalog.",
  permissions: ["mcp_servers:read"],
  input: entryRef,
  async run({ repositories }, input) {
    const entry = await repositories.catalog.get(input.entry_id);
    if (!entry) throw entryNotFound(input.entry_id);
    return entryView(entry);
  },
});
