import type { Kysely } from "kysely";
import type { SharedSecretRepository } from "../../../app/ports/shared-secret-repository.js";
import type { StoreTables } from "./store-tables.js";

export class SqlSharedSecretRepository implements SharedSecretRepository {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async obtain(name: string, candidate: string): Promise<string> {
    // The first write wins: a replica that lost the race reads the winner's value.
    await this.db
      .insertInto("shared_secrets")
      .values({ name, value: candidate, created_at: Date.now() / 1000 })
      .onConflict((oc) => oc.column("name").doNothing())
      .execute();
    const row = await this.db
      .selectFrom("shared_secrets")
      .select("value")
      .where("name", "=", name)
      .executeTakeFirstOrThrow();
    return row.value;
  }
}
