import type { Kysely } from "kysely";

/** Custom roles (permissions as a JSON list) and role assignments made through REST. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("roles")
    .addColumn("role_name", "text", (c) => c.primaryKey().notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("permissions", "text", (c) => c.notNull())
    .addColumn("created_at", "real", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("updated_at", "real", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("role_assignments")
    .addColumn("principal_id", "text", (c) => c.notNull())
    .addColumn("role_name", "text", (c) => c.notNull())
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("assigned_by", "text", (c) => c.notNull())
    .addColumn("assigned_at", "real", (c) => c.notNull())
    .addPrimaryKeyConstraint("role_assignments_pk", ["principal_id", "role_name", "scope"])
    .execute();
  await db.schema
    .createIndex("role_assignments_role")
    .on("role_assignments")
    .columns(["role_name"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("role_assignments").execute();
  await db.schema.dropTable("roles").execute();
}
