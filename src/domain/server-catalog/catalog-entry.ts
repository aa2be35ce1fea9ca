import { SERVER_ID_PATTERN } from "../server/server-id.js";
import type { ServerMode } from "../server/server-spec.js";

/**
 * An entry of the server catalog (`/catalog`, an endpoint of spec 1's earlier revision): a
 * description of an MCP server that can be registered from it (`POST /catalog/{id}/deploy`). An
 * entry runs nothing by itself. `created_at` is epoch seconds, fractional.
 */
export interface CatalogEntry {
  /** Made by the gateway (a random UUID). */
  readonly entry_id: string;
  /** Unique among entries (exact comparison). */
  readonly name: string;
  readonly description: string;
  /** How a server deployed from the entry runs; null when the entry does not say. */
  readonly mode: ServerMode | null;
  readonly command: readonly string[] | null;
  readonly image: string | null;
  readonly endpoint: string | null;
  /** Each tag once, in the order given. */
  readonly tags: readonly string[];
  readonly created_at: number;
  readonly created_by: string;
}

/** Bounds of an entry's fields (decided: the spec gives the catalog's fields no limits). */
export const CATALOG_LIMITS = {
  nameChars: 128,
  descriptionChars: 4096,
  tagChars: 64,
  /** Tags an entry carries, and tags one listing may filter by. */
  tags: 32,
} as const;

/**
 * The form of a text that search compares: Unicode compatibility-normalized (NFKC) and lower-cased
 * without regard to locale. A search matches when the folded query is a substring of the folded
 * name or description, so every backend matches the same entries.
 */
export function searchFold(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

/** Whether an entry carries every tag of `required` (an empty list: every entry does). */
export function carriesEveryTag(entry: Pick<CatalogEntry, "tags">, required: readonly string[]): boolean {
  return required.every((tag) => entry.tags.includes(tag));
}

/**
 * The tags of a `tags` query parameter: comma-separated, each trimmed, empty ones dropped, each
 * once.
 */
export function parseTagFilter(text: string | undefined): string[] {
  if (text === undefined) return [];
  return [
    ...new Set(
      text
        .split(",")
        .map((tag) => tag.trim())
        .filter(Boolean),
    ),
  ];
}

/** Longest server id (see `SERVER_ID_PATTERN`). */
const SERVER_ID_MAX = 128;

/**
 * The id a server deployed from an entry gets when the caller names none: the entry's name made a
 * valid server id. Letters lose their diacritics and are lower-cased, every run of other
 * characters becomes one `-`, leading and trailing separators are dropped, and the result is cut to
 * 128 characters. A name that keeps no letter or digit gives `entry-<first 8 characters of the
 * entry id>`.
 */
export function serverIdFromName(name: string, entryId: string): string {
  const id = name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9_.]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .slice(0, SERVER_ID_MAX)
    .replace(/[-_.]+$/, "");
  if (SERVER_ID_PATTERN.test(id)) return id;
  const fallback = `entry-${entryId.replace(/[^A-Za-z0-9]/g, "").slice(0, 8)}`;
  return SERVER_ID_PATTERN.test(fallback) ? fallback : "entry";
}
