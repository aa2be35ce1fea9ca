import { afterEach, beforeEach, expect, it } from "vitest";
import type { NewApiKey } from "../../../src/app/ports/api-key-repository.js";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import { BACKENDS, describeNow, describePostgres, openRepositories } from "../../support/backends.js";

const key = (key_id: string, extra: Partial<NewApiKey> = {}): NewApiKey => ({
  key_id,
  key_hash: key_id.padEnd(64, "0"),
  principal_id: "svc-ci",
  name: `key ${key_id}`,
  created_by: "admin",
  created_at: 1_000,
  expires_at: null,
  tenant_id: null,
  ...extra,
});

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(`ApiKeyRepository on ${backend}`, () => {
    let repos: StoreRepositories;
    let close: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      ({ repos, close } = await openRepositories(backend));
    });
    afterEach(async () => {
      await close?.();
      close = undefined;
    });

    it("finds a created key by its hash, not revoked and never used", async () => {
      await repos.apiKeys.create(key("k1", { expires_at: 5_000.5, tenant_id: "t1" }));
      expect(await repos.apiKeys.findByHash(key("k1").key_hash)).toEqual({
        ...key("k1", { expires_at: 5_000.5, tenant_id: "t1" }),
        revoked: false,
        revoked_at: null,
        revoked_by: null,
        revoke_reason: null,
        last_used_at: null,
      });
      expect(await repos.apiKeys.findByHash("f".repeat(64))).toBeUndefined();
      expect((await repos.apiKeys.get("k1"))?.key_id).toBe("k1");
    });

    it("rejects a duplicate hash or id and stores nothing", async () => {
      await repos.apiKeys.create(key("k1"));
      await expect(repos.apiKeys.create(key("k2", { key_hash: key("k1").key_hash }))).rejects.toThrow();
      await expect(repos.apiKeys.create(key("k1", { key_hash: "e".repeat(64) }))).rejects.toThrow();
      expect(await repos.apiKeys.get("k2")).toBeUndefined();
      expect(await repos.apiKeys.findByHash("e".repeat(64))).toBeUndefined();
    });

    it("lists a principal's keys oldest first, with or without revoked ones", async () => {
      await repos.apiKeys.create(key("b", { created_at: 20 }));
      await repos.apiKeys.create(key("a", { created_at: 10 }));
      await repos.apiKeys.create(key("c", { created_at: 30 }));
      await repos.apiKeys.create(key("other", { principal_id: "someone-else" }));
      await repos.apiKeys.revoke("b", { revoked_by: "admin", reason: "", at: 40 });
      expect((await repos.apiKeys.list("svc-ci", true)).map((k) => k.key_id)).toEqual(["a", "b", "c"]);
      expect((await repos.apiKeys.list("svc-ci", false)).map((k) => k.key_id)).toEqual(["a", "c"]);
      expect(await repos.apiKeys.list("nobody", true)).toEqual([]);
    });

    it("revokes a key once: a second revocation keeps the first one's fields", async () => {
      await repos.apiKeys.create(key("k1"));
      const revoked = await repos.apiKeys.revoke("k1", { revoked_by: "admin", reason: "leaked", at: 2_000 });
      expect(revoked).toMatchObject({
        revoked: true,
        revoked_at: 2_000,
        revoked_by: "admin",
        revoke_reason: "leaked",
      });
      const again = await repos.apiKeys.revoke("k1", { revoked_by: "other", reason: "again", at: 3_000 });
      expect(again).toMatchObject({
        revoked: true,
        revoked_at: 2_000,
        revoked_by: "admin",
        revoke_reason: "leaked",
      });
      expect((await repos.apiKeys.findByHash(key("k1").key_hash))?.revoked).toBe(true);
      expect(await repos.apiKeys.revoke("ghost", { revoked_by: "admin", reason: "", at: 1 })).toBeUndefined();
    });

    it("records the latest use of each key from a batch, ignoring unknown keys and older uses", async () => {
      await repos.apiKeys.create(key("k1"));
      await repos.apiKeys.create(key("k2"));
      await repos.apiKeys.touchLastUsed([
        { key_id: "k1", at: 1_500 },
        { key_id: "k1", at: 1_700.25 },
        { key_id: "k1", at: 1_600 },
        { key_id: "ghost", at: 1_800 },
      ]);
      expect((await repos.apiKeys.get("k1"))?.last_used_at).toBe(1_700.25);
      expect((await repos.apiKeys.get("k2"))?.last_used_at).toBeNull();
      await repos.apiKeys.touchLastUsed([{ key_id: "k1", at: 1_000 }]);
      expect((await repos.apiKeys.get("k1"))?.last_used_at).toBe(1_700.25);
      await repos.apiKeys.touchLastUsed([]);
    });
  });
}
