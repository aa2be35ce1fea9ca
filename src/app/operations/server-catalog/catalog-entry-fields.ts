import { z } from "zod";
import { GatewayError } from "../../../domain/errors.js";
import { CATALOG_LIMITS, type CatalogEntry } from "../../../domain/server-catalog/catalog-entry.js";
import { isoFromSeconds } from "../auth/fields.js";

/** An entry by its id (the path's `{entry_id}`). */
export const entryRef = z.strictObject({ entry_id: z.string().min(1).describe("Catalog entry id") });

/** 404 `CatalogEntryNotFoundError` for an id no entry has. */
export const entryNotFound = (entryId: string): GatewayError =>
  new GatewayError("CatalogEntryNotFoundError", `Catalog entry not found: ${entryId}`, null, {
    subject: entryId,
  });

/** C0 and C1 control characters (a line break included): none belongs in a name or a tag. */
const CONTROL = /\p{Cc}/u;

/**
 * A name: 1-128 characters, not blank, no control character, no space at either end (names are
 * compared exactly, so `math` and `math ` would otherwise be two entries).
 */
export const entryName = z
  .string()
  .max(CATALOG_LIMITS.nameChars, `must be at most ${CATALOG_LIMITS.nameChars} characters`)
  .refine((name) => name.trim() !== "", "must not be blank")
  .refine((name) => name === name.trim(), "must not start or end with whitespace")
  .refine((name) => !CONTROL.test(name), "must not hold control characters");

export const entryDescription = z
  .string()
  .max(CATALOG_LIMITS.descriptionChars, `must be at most ${CATALOG_LIMITS.descriptionChars} characters`)
  .refine((description) => description.trim() !== "", "must not be blank");

/** A tag: what a `tags=` filter can name, so no comma, and no space at either end (it is trimmed there). */
const TAG = new RegExp(`^(?!\\s)[^,\\p{Cc}]{1,${CATALOG_LIMITS.tagChars}}(?<!\\s)$`, "u");
const TAG_RULE = `1-${CATALOG_LIMITS.tagChars} characters without commas or control characters, not starting or ending with whitespace`;

export const entryTags = z
  .array(z.string().regex(TAG, TAG_RULE))
  .max(CATALOG_LIMITS.tags, `must hold at most ${CATALOG_LIMITS.tags} tags`);

/** An entry as every catalog route answers it; `created_at` in ISO 8601 (UTC). */
export function entryView(entry: CatalogEntry) {
  return {
    entry_id: entry.entry_id,
    name: entry.name,
    description: entry.description,
    mode: entry.mode,
    command: entry.command,
    image: entry.image,
    endpoint: entry.endpoint,
    tags: entry.tags,
    created_at: isoFromSeconds(entry.created_at),
    created_by: entry.created_by,
  };
}
