import type { Kysely } from "kysely";

/**
 * The tool policy a policy agent pushed (`POST /agent/policy`): one row (`id` `current`), shared
 * by every replica and kept across restarts. `revision` counts the pushes put in force.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("agent_policy")
    .addColumn("id", "text", (c) => c.primaryKey().notNull())
    .addColumn("version", "bigint", (c) => c.notNull())
    .addColumn("tool_policies", "text", (c) => c.notNull())
    .addColumn("pushed_by", "text", (c) => c.notNull())
    .addColumn("pushed_at", "double precision", (c) => c.notNull())
    .addColumn("revision", "bigint", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("agent_policy").execute();
}
