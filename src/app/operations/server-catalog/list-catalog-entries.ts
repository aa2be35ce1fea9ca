import { z } from "zod";
import { CATALOG_LIMITS, parseTagFilter } from "../../../domain/server-catalog/catalog-entry.js";
import { defineOperation } from "../../operation.js";
import { fieldIssues } from "../../validation.js";
import { clampedInteger } from "../clamped-integer.js";
import { entryView } from "./catalog-entry-fields.js";

/** A page holds 100 entries unless asked otherwise, 500 at most (as tool history's `limit`). */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 500;

export const listCatalogEntries = defineOperation({
  name: "list-catalog-entries",
  kind: "query",
  summary:
    "Entries of the server catalog by name, filtered by a case-insensitive search of name and " +
    "description and by tags (every tag listed), a page at a time.",
  permissions: ["mcp_servers:read"],
  input: z.strictObject({
    search: z.string().optional(),
    /** Comma-separated; an entry must carry every one. */
    tags: z.string().optional(),
    limit: clampedInteger(DEFAULT_LIMIT, 1, MAX_LIMIT),
    offset: clampedInteger(0, 0, Number.MAX_SAFE_INTEGER),
  }),
  async run({ repositories }, input) {
    const tags = parseTagFilter(input.tags);
    // An entry carries at most that many tags: a longer filter could match nothing.
    if (tags.length > CATALOG_LIMITS.tags) {
      throw fieldIssues([{ field: "tags", rule: `must name at most ${CATALOG_LIMITS.tags} tags` }]);
    }
    const page = await repositories.catalog.list({
      ...(input.search && { search: input.search }),
      tags,
      limit: input.limit,
      offset: input.offset,
    });
    return {
      entries: page.entries.map(entryView),
      total: page.total,
      limit: input.limit,
      offset: input.offset,
    };
  },
});
