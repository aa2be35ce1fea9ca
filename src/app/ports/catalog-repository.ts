import type { CatalogEntry } from "../../domain/server-catalog/catalog-entry.js";

/** Which entries one listing reads, and which page of them. */
export interface CatalogQuery {
  /**
   * Entries whose name or description holds this text, compared as `searchFold` folds them
   * (case-insensitive); absent or empty, every entry.
   */
  readonly search?: string;
  /** Entries carrying every one of these tags (exact comparison); absent or empty, every entry. */
  readonly tags?: readonly string[];
  /** At most this many entries (at least 1). */
  readonly limit: number;
  /** Matching entries skipped before the page starts (0 or more). */
  readonly offset: number;
}

export interface CatalogPage {
  /** Ordered by name (byte order), then by id. */
  readonly entries: CatalogEntry[];
  /** Entries matching the query, on every page. */
  readonly total: number;
}

/**
 * Entries of the server catalog, shared by every replica using the same database.
 *
 * Guaranteed: names are unique (`create` of a taken name writes nothing and answers false); an
 * entry reads back equal to what was created (tags in their order); every backend filters and
 * orders a listing alike.
 * Not guaranteed: that a listing's `total` and page, or its pages one after the other, agree while
 * entries are being created or deleted (offset paging); anything about servers deployed from an
 * entry (they are registrations of their own, and outlive it).
 */
export interface CatalogRepository {
  /** False, and nothing written, when an entry of that name exists. */
  create(entry: CatalogEntry): Promise<boolean>;
  get(entryId: string): Promise<CatalogEntry | undefined>;
  list(query: CatalogQuery): Promise<CatalogPage>;
  /** The removed entry, or undefined when there was none. */
  delete(entryId: string): Promise<CatalogEntry | undefined>;
}
