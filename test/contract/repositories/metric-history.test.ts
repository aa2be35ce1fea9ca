import { afterEach, beforeEach, expect, it } from "vitest";
import type { MetricSample } from "../../../src/app/ports/metric-history.js";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import { BACKENDS, describeNow, describePostgres, openRepositories } from "../../support/backends.js";

const sample = (
  name: string,
  recorded_at: number,
  value = 1,
  labels: Record<string, string> = {},
): MetricSample => ({
  name,
  labels,
  value,
  recorded_at,
});

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(`MetricHistory on ${backend}`, () => {
    let repos: StoreRepositories;
    let close: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      ({ repos, close } = await openRepositories(backend));
    });
    afterEach(async () => {
      await close?.();
      close = undefined;
    });

    it("returns samples since a time, oldest first, with labels and fractional values", async () => {
      await repos.metricHistory.append([
        sample("calls", 30, 3, { server: "math" }),
        sample("calls", 10, 1.25, { server: "math" }),
        sample("errors", 20, 0),
      ]);
      expect(await repos.metricHistory.query({ since: 0 })).toEqual([
        sample("calls", 10, 1.25, { server: "math" }),
        sample("errors", 20, 0),
        sample("calls", 30, 3, { server: "math" }),
      ]);
      expect((await repos.metricHistory.query({ since: 20 })).map((s) => s.recorded_at)).toEqual([20, 30]);
    });

    it("filters by name and keeps append order among samples of the same instant", async () => {
      await repos.metricHistory.append([sample("calls", 5, 1), sample("errors", 5, 9)]);
      await repos.metricHistory.append([sample("calls", 5, 2)]);
      expect((await repos.metricHistory.query({ name: "calls", since: 0 })).map((s) => s.value)).toEqual([
        1, 2,
      ]);
    });

    it("returns at most `limit` samples, the oldest ones", async () => {
      await repos.metricHistory.append(Array.from({ length: 700 }, (_, i) => sample("calls", i)));
      const page = await repos.metricHistory.query({ since: 0, limit: 3 });
      expect(page.map((s) => s.recorded_at)).toEqual([0, 1, 2]);
      expect(await repos.metricHistory.query({ since: 0 })).toHaveLength(700);
    });

    it("answers newest first on request, ties in reverse order of appending, a limit keeping the newest", async () => {
      await repos.metricHistory.append([
        sample("calls", 10, 1),
        sample("calls", 30, 2),
        sample("calls", 20, 3),
      ]);
      await repos.metricHistory.append([sample("errors", 30, 4)]);
      const newest = await repos.metricHistory.query({ since: 15, newestFirst: true });
      expect(newest.map((s) => [s.recorded_at, s.value])).toEqual([
        [30, 4],
        [30, 2],
        [20, 3],
      ]);
      const page = await repos.metricHistory.query({ since: 0, newestFirst: true, limit: 2 });
      expect(page.map((s) => s.value)).toEqual([4, 2]);
      const named = await repos.metricHistory.query({ name: "calls", since: 0, newestFirst: true, limit: 1 });
      expect(named.map((s) => s.value)).toEqual([2]);
    });

    it("keeps labels apart: samples of one name with different labels come back as appended", async () => {
      await repos.metricHistory.append([
        sample("calls", 5, 1, { mcp_server: "math", replica: "a" }),
        sample("calls", 5, 2, { mcp_server: "math", replica: "b" }),
        sample("calls", 5, 3, { mcp_server: "text", replica: "a" }),
      ]);
      expect((await repos.metricHistory.query({ since: 0 })).map((s) => s.labels)).toEqual([
        { mcp_server: "math", replica: "a" },
        { mcp_server: "math", replica: "b" },
        { mcp_server: "text", replica: "a" },
      ]);
    });

    it("prunes exactly the samples recorded before the cutoff", async () => {
      await repos.metricHistory.append([sample("a", 10), sample("a", 20), sample("b", 30)]);
      expect(await repos.metricHistory.prune(20)).toBe(1);
      expect((await repos.metricHistory.query({ since: 0 })).map((s) => s.recorded_at)).toEqual([20, 30]);
      expect(await repos.metricHistory.prune(20)).toBe(0);
    });

    it("rejects a batch holding a value that is not finite and stores none of it", async () => {
      await expect(
        repos.metricHistory.append([sample("ok", 1), sample("bad", 2, Number.NaN)]),
      ).rejects.toThrow(RangeError);
      await expect(repos.metricHistory.append([sample("bad", 2, Number.POSITIVE_INFINITY)])).rejects.toThrow(
        RangeError,
      );
      expect(await repos.metricHistory.query({ since: 0 })).toEqual([]);
    });
  });
}
