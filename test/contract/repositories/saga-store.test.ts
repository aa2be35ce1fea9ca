import { afterEach, beforeEach, expect, it } from "vitest";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import { BACKENDS, describeNow, describePostgres, openRepositories } from "../../support/backends.js";

const saga = (saga_id: string, state: unknown, saga_type = "server-registration") => ({
  saga_id,
  saga_type,
  state,
  updated_at: 1_700_000_000.5,
});

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(`SagaStore on ${backend}`, () => {
    let repos: StoreRepositories;
    let close: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      ({ repos, close } = await openRepositories(backend));
    });
    afterEach(async () => {
      await close?.();
      close = undefined;
    });

    it("creates a saga at version 1 with expected version 0 and loads it back", async () => {
      expect(await repos.sagas.save(saga("s1", { step: "provision", ids: [1, 2] }), 0)).toEqual({
        saved: true,
        version: 1,
      });
      expect(await repos.sagas.load("s1")).toEqual({
        saga_id: "s1",
        saga_type: "server-registration",
        state: { step: "provision", ids: [1, 2] },
        version: 1,
        updated_at: 1_700_000_000.5,
      });
    });

    it("refuses to create a saga that exists, so a create is a one-shot claim", async () => {
      await repos.sagas.save(saga("s1", { owner: "a" }), 0);
      expect(await repos.sagas.save(saga("s1", { owner: "b" }), 0)).toEqual({
        saved: false,
        current_version: 1,
      });
      expect((await repos.sagas.load("s1"))?.state).toEqual({ owner: "a" });
    });

    it("saves only over the expected version and increments it", async () => {
      await repos.sagas.save(saga("s1", { n: 1 }), 0);
      expect(await repos.sagas.save(saga("s1", { n: 2 }), 1)).toEqual({ saved: true, version: 2 });
      expect(await repos.sagas.save(saga("s1", { n: 99 }), 1)).toEqual({ saved: false, current_version: 2 });
      expect(await repos.sagas.load("s1")).toMatchObject({ state: { n: 2 }, version: 2 });
    });

    it("answers a save over a missing saga with a null current version", async () => {
      expect(await repos.sagas.save(saga("ghost", {}), 3)).toEqual({ saved: false, current_version: null });
      expect(await repos.sagas.load("ghost")).toBeUndefined();
    });

    it("lets exactly one of two concurrent saves with the same expected version win", async () => {
      await repos.sagas.save(saga("s1", { n: 0 }), 0);
      const results = await Promise.all([
        repos.sagas.save(saga("s1", { by: "a" }), 1),
        repos.sagas.save(saga("s1", { by: "b" }), 1),
      ]);
      expect(results.filter((r) => r.saved)).toHaveLength(1);
      expect((await repos.sagas.load("s1"))?.version).toBe(2);
    });

    it("lets exactly one of many concurrent creates win", async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => repos.sagas.save(saga("claim", { by: i }), 0)),
      );
      expect(results.filter((r) => r.saved)).toHaveLength(1);
    });

    it("stores any JSON value as state", async () => {
      await repos.sagas.save(saga("list", [1, "two", null]), 0);
      await repos.sagas.save(saga("text", "plain"), 0);
      await repos.sagas.save(saga("none", null), 0);
      expect((await repos.sagas.load("list"))?.state).toEqual([1, "two", null]);
      expect((await repos.sagas.load("text"))?.state).toBe("plain");
      expect((await repos.sagas.load("none"))?.state).toBeNull();
    });

    it("lists sagas of one type ordered by id", async () => {
      await repos.sagas.save(saga("b", {}, "t1"), 0);
      await repos.sagas.save(saga("a", {}, "t1"), 0);
      await repos.sagas.save(saga("c", {}, "t2"), 0);
      expect((await repos.sagas.listByType("t1")).map((s) => s.saga_id)).toEqual(["a", "b"]);
      expect(await repos.sagas.listByType("none")).toEqual([]);
    });

    it("deletes a saga, after which it can be created again from version 0", async () => {
      await repos.sagas.save(saga("s1", {}), 0);
      expect(await repos.sagas.delete("s1")).toBe(true);
      expect(await repos.sagas.delete("s1")).toBe(false);
      expect(await repos.sagas.save(saga("s1", {}), 0)).toEqual({ saved: true, version: 1 });
    });

    it("rejects an expected version that is not a non-negative integer", async () => {
      await expect(repos.sagas.save(saga("s1", {}), -1)).rejects.toThrow(RangeError);
      await expect(repos.sagas.save(saga("s1", {}), 1.5)).rejects.toThrow(RangeError);
    });
  });
}
