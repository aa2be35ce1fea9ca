import type { CatalogPage, CatalogQuery, CatalogRepository } from "../../../app/ports/catalog-repository.js";
import {
  type CatalogEntry,
  carriesEveryTag,
  searchFold,
} from "../../../domain/server-catalog/catalog-entry.js";
import { byText, jsonCopy } from "./memory-helpers.js";

export class MemoryCatalogRepository implements CatalogRepository {
  private readonly entries = new Map<string, CatalogEntry>();

  async create(entry: CatalogEntry): Promise<boolean> {
    for (const existing of this.entries.values()) if (existing.name === entry.name) return false;
    this.entries.set(entry.entry_id, jsonCopy(entry));
    return true;
  }

  async get(entryId: string): Promise<CatalogEntry | undefined> {
    const entry = this.entries.get(entryId);
    return entry && jsonCopy(entry);
  }

  async list(query: CatalogQuery): Promise<CatalogPage> {
    const search = query.search ? searchFold(query.search) : "";
    const tags = query.tags ?? [];
    const matching = [...this.entries.values()]
      .filter(
        (entry) =>
          (search === "" ||
            searchFold(entry.name).includes(search) ||
            searchFold(entry.description).includes(search)) &&
          carriesEveryTag(entry, tags),
      )
      .sort((a, b) => byText(a.name, b.name) || byText(a.entry_id, b.entry_id));
    return {
      entries: matching.slice(query.offset, query.offset + query.limit).map(jsonCopy),
      total: matching.length,
    };
  }

  async delete(entryId: string): Promise<CatalogEntry | undefined> {
    const entry = this.entries.get(entryId);
    this.entries.delete(entryId);
    return entry;
  }
}
