import type { Kysely } from "kysely";

/** Tool-access policies set through REST, keyed by (scope, target_id); globs as JSON lists. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("tool_access_policies")
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("target_id", "text", (c) => c.notNull())
    .addColumn("allow_list", "text", (c) => c.notNull())
    .addColumn("deny_list", "text", (c) => c.notNull())
    .addColumn("updated_at", "real", (c) => c.notNull())
    .addColumn("updated_by", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("tool_access_policies_pk", ["scope", "target_id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("tool_access_policies").execute();
}
