import { type Kysely, type Selectable, type SqlBool, sql } from "kysely";
import type { CatalogPage, CatalogQuery, CatalogRepository } from "../../../app/ports/catalog-repository.js";
import type { ServerMode } from "../../../domain/server/server-spec.js";
import { type CatalogEntry, searchFold } from "../../../domain/server-catalog/catalog-entry.js";
import { fromJson, toJson } from "./sql-helpers.js";
import type { StoreTables } from "./store-tables.js";

type Row = Selectable<StoreTables["catalog_entries"]>;

const toEntry = (row: Row): CatalogEntry => ({
  entry_id: row.entry_id,
  name: row.name,
  description: row.description,
  mode: row.mode as ServerMode | null,
  command: row.command === null ? null : fromJson<string[]>(row.command),
  image: row.image,
  endpoint: row.endpoint,
  tags: fromJson<string[]>(row.tags),
  created_at: row.created_at,
  created_by: row.created_by,
});

/** `text` as a LIKE pattern matching itself only: `\` escapes `%`, `_` and itself. */
const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, (char) => `\\${char}`);

export class SqlCatalogRepository implements CatalogRepository {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async create(entry: CatalogEntry): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto("catalog_entries")
        .values({
          entry_id: entry.entry_id,
          name: entry.name,
          description: entry.description,
          mode: entry.mode,
          command: entry.command === null ? null : toJson(entry.command),
          image: entry.image,
          endpoint: entry.endpoint,
          tags: toJson(entry.tags),
          created_at: entry.created_at,
          created_by: entry.created_by,
          search_name: searchFold(entry.name),
          search_description: searchFold(entry.description),
        })
        .onConflict((oc) => oc.column("name").doNothing())
        .returning("entry_id")
        .executeTakeFirst();
      if (row === undefined) return false;
      const tags = [...new Set(entry.tags)];
      if (tags.length > 0) {
        await trx
          .insertInto("catalog_entry_tags")
          .values(tags.map((tag) => ({ entry_id: entry.entry_id, tag })))
          .execute();
      }
      return true;
    });
  }

  async get(entryId: string): Promise<CatalogEntry | undefined> {
    const row = await this.db
      .selectFrom("catalog_entries")
      .selectAll()
      .where("entry_id", "=", entryId)
      .executeTakeFirst();
    return row && toEntry(row);
  }

  async list(query: CatalogQuery): Promise<CatalogPage> {
    const matching = this.matching(query);
    const counted = await matching
      .select((eb) => eb.fn.countAll<number | string | bigint>().as("total"))
      .executeTakeFirstOrThrow();
    const rows = await matching
      .selectAll()
      .orderBy("name")
      .orderBy("entry_id")
      .limit(query.limit)
      .offset(query.offset)
      .execute();
    // PostgreSQL answers count(*) as a bigint, which its driver reads as a string.
    return { entries: rows.map(toEntry), total: Number(counted.total) };
  }

  async delete(entryId: string): Promise<CatalogEntry | undefined> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom("catalog_entry_tags").where("entry_id", "=", entryId).execute();
      const row = await trx
        .deleteFrom("catalog_entries")
        .where("entry_id", "=", entryId)
        .returningAll()
        .executeTakeFirst();
      return row && toEntry(row);
    });
  }

  /** The entries a query selects, not yet read. */
  private matching(query: CatalogQuery) {
    let rows = this.db.selectFrom("catalog_entries");
    const search = query.search ? searchFold(query.search) : "";
    if (search !== "") {
      // Both sides are folded already (`searchFold`): LIKE only finds the substring, on either
      // dialect (SQLite's own case folding, ASCII only, changes nothing on folded text).
      const pattern = `%${likeLiteral(search)}%`;
      rows = rows.where((eb) =>
        eb.or([
          sql<SqlBool>`${eb.ref("search_name")} like ${pattern} escape '\\'`,
          sql<SqlBool>`${eb.ref("search_description")} like ${pattern} escape '\\'`,
        ]),
      );
    }
    for (const tag of new Set(query.tags ?? [])) {
      rows = rows.where((eb) =>
        eb.exists(
          eb
            .selectFrom("catalog_entry_tags")
            .select("catalog_entry_tags.tag")
            .whereRef("catalog_entry_tags.entry_id", "=", "catalog_entries.entry_id")
            .where("catalog_entry_tags.tag", "=", tag),
        ),
      );
    }
    return rows;
  }
}
