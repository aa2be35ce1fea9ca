import type { Kysely } from "kysely";

/**
 * When the held call stops waiting for its approval (its batch deadline, epoch seconds); null for
 * approvals whose call waits until `expires_at` (and for those created before this column).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("approvals").addColumn("call_deadline_at", "double precision").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("approvals").dropColumn("call_deadline_at").execute();
}
