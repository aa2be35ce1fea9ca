import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { memoryRepositories } from "../../../src/adapters/store/memory/memory-repositories.js";
import { sqlRepositories } from "../../../src/adapters/store/sql/sql-repositories.js";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import {
  BACKENDS,
  type BackendName,
  describePostgres,
  freshPostgres,
  freshSqlite,
} from "../../support/backends.js";

async function open(backend: BackendName): Promise<{ repos: StoreRepositories; close(): Promise<void> }> {
  if (backend === "memory") return { repos: memoryRepositories(), close: async () => undefined };
  const store = backend === "sqlite" ? await freshSqlite() : await freshPostgres();
  return { repos: sqlRepositories(store), close: () => store.close() };
}
const describeNow = async (name: string, body: () => void) => describe(name, body);

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(
    `GroupConfigRepository on ${backend}`,
    () => {
      let repos: StoreRepositories;
      let close: (() => Promise<void>) | undefined;
      beforeEach(async () => {
        ({ repos, close } = await open(backend));
      });
      afterEach(async () => {
        await close?.();
      });

      it("saves, replaces, lists by id and deletes group definitions", async () => {
        await repos.groupConfigs.save(
          { group_id: "b", strategy: "random", members: [{ id: "x", weight: 2 }] },
          1,
        );
        await repos.groupConfigs.save({ group_id: "a", strategy: "priority", members: [] }, 2);
        await repos.groupConfigs.save({ group_id: "b", strategy: "round_robin", members: [{ id: "y" }] }, 3);
        expect(await repos.groupConfigs.list()).toEqual([
          { group_id: "a", strategy: "priority", members: [] },
          { group_id: "b", strategy: "round_robin", members: [{ id: "y" }] },
        ]);
        expect(await repos.groupConfigs.delete("a")).toBe(true);
        expect(await repos.groupConfigs.delete("a")).toBe(false);
        expect((await repos.groupConfigs.list()).map((g) => g.group_id)).toEqual(["b"]);
      });
    },
  );
}
