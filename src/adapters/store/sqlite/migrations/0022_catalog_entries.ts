import type { Kysely } from "kysely";

/**
 * Entries of the server catalog, and their tags one row each (the `tags` filter). `search_name` and
 * `search_description` hold the folded texts a search compares (`searchFold`), so that every
 * backend matches alike whatever its own case rules.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("catalog_entries")
    .addColumn("entry_id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull().unique())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("mode", "text")
    .addColumn("command", "text")
    .addColumn("image", "text")
    .addColumn("endpoint", "text")
    .addColumn("tags", "text", (c) => c.notNull())
    .addColumn("created_at", "real", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("search_name", "text", (c) => c.notNull())
    .addColumn("search_description", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("catalog_entry_tags")
    .addColumn("entry_id", "text", (c) => c.notNull())
    .addColumn("tag", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("catalog_entry_tags_pk", ["entry_id", "tag"])
    .execute();
  await db.schema
    .createIndex("catalog_entry_tags_tag")
    .on("catalog_entry_tags")
    .columns(["tag", "entry_id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("catalog_entry_tags").execute();
  await db.schema.dropTable("catalog_entries").execute();
}
