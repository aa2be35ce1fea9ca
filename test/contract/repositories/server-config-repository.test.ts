import { afterEach, beforeEach, expect, it } from "vitest";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import type { ServerSpec } from "../../../src/domain/server/server-spec.js";
import { BACKENDS, describeNow, describePostgres, openRepositories } from "../../support/backends.js";

const spec = (id: string, extra: Partial<ServerSpec> = {}): ServerSpec => ({
  id,
  mode: "subprocess",
  command: ["node", "server.js"],
  env: { API_TOKEN: "s3cret" },
  idle_ttl_s: 300,
  health_check_interval_s: 60,
  max_consecutive_failures: 3,
  source: "api",
  ...extra,
});

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(
    `ServerConfigRepository on ${backend}`,
    () => {
      let repos: StoreRepositories;
      let close: (() => Promise<void>) | undefined;
      beforeEach(async () => {
        ({ repos, close } = await openRepositories(backend));
      });
      afterEach(async () => {
        await close?.();
        close = undefined;
      });

      it("returns a saved specification as given, sensitive env values included", async () => {
        const saved = await repos.serverConfigs.save(
          spec("math", { options: { headers: { Authorization: "Bearer x" } } }),
          1_700_000_000.25,
        );
        expect(saved).toEqual({
          id: "math",
          spec: spec("math", { options: { headers: { Authorization: "Bearer x" } } }),
          created_at: 1_700_000_000.25,
          updated_at: 1_700_000_000.25,
        });
        expect(await repos.serverConfigs.get("math")).toEqual(saved);
      });

      it("replaces the whole record on a second save and keeps the first created_at", async () => {
        await repos.serverConfigs.save(spec("math", { description: "old" }), 100);
        const replaced = await repos.serverConfigs.save(
          spec("math", { mode: "remote", command: undefined }),
          200,
        );
        expect(replaced.created_at).toBe(100);
        expect(replaced.updated_at).toBe(200);
        expect(replaced.spec.mode).toBe("remote");
        expect(replaced.spec).not.toHaveProperty("description");
        expect(replaced.spec).not.toHaveProperty("command");
        expect(await repos.serverConfigs.list()).toHaveLength(1);
      });

      it("lists records ordered by id", async () => {
        for (const id of ["b", "a", "C", "c"]) await repos.serverConfigs.save(spec(id), 1);
        expect((await repos.serverConfigs.list()).map((r) => r.id)).toEqual(["C", "a", "b", "c"]);
      });

      it("deletes a record and says whether one existed", async () => {
        await repos.serverConfigs.save(spec("math"), 1);
        expect(await repos.serverConfigs.delete("math")).toBe(true);
        expect(await repos.serverConfigs.delete("math")).toBe(false);
        expect(await repos.serverConfigs.get("math")).toBeUndefined();
        expect(await repos.serverConfigs.list()).toEqual([]);
      });

      it("does not let a caller change the stored record through a returned object", async () => {
        const saved = await repos.serverConfigs.save(spec("math"), 1);
        (saved.spec.env as Record<string, string>).API_TOKEN = "changed";
        expect((await repos.serverConfigs.get("math"))?.spec.env.API_TOKEN).toBe("s3cret");
      });
    },
  );
}
