import { afterEach, beforeEach, expect, it } from "vitest";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import { BACKENDS, describeNow, describePostgres, openRepositories } from "../../support/backends.js";

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(
    `GroupConfigRepository on ${backend}`,
    () => {
      let repos: StoreRepositories;
      let close: (() => Promise<void>) | undefined;
      beforeEach(async () => {
        ({ repos, close } = await openRepositories(backend));
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
