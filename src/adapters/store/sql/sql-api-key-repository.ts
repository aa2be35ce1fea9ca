import type { Kysely, Selectable } from "kysely";
import type {
  ApiKeyRecord,
  ApiKeyRepository,
  ApiKeyRevocation,
  ApiKeyUse,
  NewApiKey,
} from "../../../app/ports/api-key-repository.js";
import type { StoreTables } from "./store-tables.js";

type Row = Selectable<StoreTables["api_keys"]>;

const toRecord = (row: Row): ApiKeyRecord => ({ ...row, revoked: row.revoked === 1 });

export class SqlApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async create(key: NewApiKey): Promise<void> {
    await this.db
      .insertInto("api_keys")
      .values({
        key_id: key.key_id,
        key_hash: key.key_hash,
        principal_id: key.principal_id,
        name: key.name,
        created_by: key.created_by,
        created_at: key.created_at,
        expires_at: key.expires_at,
        revoked: 0,
        tenant_id: key.tenant_id,
      })
      .execute();
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db
      .selectFrom("api_keys")
      .selectAll()
      .where("key_hash", "=", keyHash)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async get(keyId: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db
      .selectFrom("api_keys")
      .selectAll()
      .where("key_id", "=", keyId)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async list(principalId: string, includeRevoked: boolean): Promise<ApiKeyRecord[]> {
    let select = this.db.selectFrom("api_keys").selectAll().where("principal_id", "=", principalId);
    if (!includeRevoked) select = select.where("revoked", "=", 0);
    const rows = await select.orderBy("created_at").orderBy("key_id").execute();
    return rows.map(toRecord);
  }

  async revoke(keyId: string, revocation: ApiKeyRevocation): Promise<ApiKeyRecord | undefined> {
    const row = await this.db
      .updateTable("api_keys")
      .set({
        revoked: 1,
        revoked_at: revocation.at,
        revoked_by: revocation.revoked_by,
        revoke_reason: revocation.reason,
      })
      .where("key_id", "=", keyId)
      .where("revoked", "=", 0)
      .returningAll()
      .executeTakeFirst();
    return row ? toRecord(row) : this.get(keyId);
  }

  async touchLastUsed(uses: readonly ApiKeyUse[]): Promise<void> {
    const latest = new Map<string, number>();
    for (const use of uses) latest.set(use.key_id, Math.max(use.at, latest.get(use.key_id) ?? use.at));
    if (latest.size === 0) return;
    // One transaction: a single commit (one fsync) however many keys the batch names.
    await this.db.transaction().execute(async (trx) => {
      for (const [keyId, at] of latest) {
        await trx
          .updateTable("api_keys")
          .set({ last_used_at: at })
          .where("key_id", "=", keyId)
          .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", at)]))
          .execute();
      }
    });
  }
}
