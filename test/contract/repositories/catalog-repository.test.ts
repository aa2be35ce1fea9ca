import { expect, it } from "vitest";
import type { CatalogQuery } from "../../../src/app/ports/catalog-repository.js";
import type { CatalogEntry } from "../../../src/domain/server-catalog/catalog-entry.js";
import { describeEachBackend } from "../../support/backends.js";

let sequence = 0;

const entry = (name: string, extra: Partial<CatalogEntry> = {}): CatalogEntry => ({
  entry_id: `entry-${String(++sequence).padStart(4, "0")}`,
  name,
  description: `About ${name}`,
  mode: null,
  command: null,
  image: null,
  endpoint: null,
  tags: [],
  created_at: 1_700_000_000.25,
  created_by: "admin",
  ...extra,
});

const everything: CatalogQuery = { limit: 100, offset: 0 };

await describeEachBackend("CatalogRepository", (repos) => {
  /** The names a query lists, in order. */
  const names = async (query: Partial<CatalogQuery>) =>
    (await repos().catalog.list({ ...everything, ...query })).entries.map((e) => e.name);

  it("reads an entry back as it was created, every field included", async () => {
    const full = entry("Arithmetic", {
      mode: "subprocess",
      command: ["node", "examples/servers/arithmetic.mjs", "--flag=a b"],
      image: "ghcr.io/example/arithmetic:1",
      endpoint: "https://mcp.example.com/mcp?x=1",
      tags: ["math", "local", "données"],
      description: "Adds, subtracts\nand more: 100% _tested_",
    });
    expect(await repos().catalog.create(full)).toBe(true);
    expect(await repos().catalog.get(full.entry_id)).toEqual(full);
    expect(await repos().catalog.list(everything)).toEqual({ entries: [full], total: 1 });
    expect(await repos().catalog.get("no-such-entry")).toBeUndefined();
  });

  it("refuses a second entry of a taken name and writes nothing of it", async () => {
    const first = entry("math", { tags: ["a"] });
    const second = entry("math", { tags: ["b"], description: "other" });
    expect(await repos().catalog.create(first)).toBe(true);
    expect(await repos().catalog.create(second)).toBe(false);
    expect(await repos().catalog.get(second.entry_id)).toBeUndefined();
    expect(await names({ tags: ["b"] })).toEqual([]);
    // Names are compared exactly: another case is another name.
    expect(await repos().catalog.create(entry("Math"))).toBe(true);
    expect(await names({})).toEqual(["Math", "math"]);
  });

  it("lists by name in byte order, then by id", async () => {
    for (const name of ["zeta", "Alpha", "beta", "alpha"]) await repos().catalog.create(entry(name));
    expect(await names({})).toEqual(["Alpha", "alpha", "beta", "zeta"]);
  });

  it("searches name and description as a case-insensitive substring", async () => {
    await repos().catalog.create(entry("GitHub Tools", { description: "Issues and pull requests" }));
    await repos().catalog.create(entry("Weather", { description: "Forecasts from the GITHUB of clouds" }));
    await repos().catalog.create(entry("Café Menu", { description: "Plats du jour" }));
    await repos().catalog.create(entry("Percent", { description: "Rates in 100%_exact" }));
    expect(await names({ search: "github" })).toEqual(["GitHub Tools", "Weather"]);
    expect(await names({ search: "PULL REQ" })).toEqual(["GitHub Tools"]);
    // Folded beyond ASCII alike on every backend.
    expect(await names({ search: "CAFÉ" })).toEqual(["Café Menu"]);
    // LIKE's wildcards are plain characters of the search.
    expect(await names({ search: "%" })).toEqual(["Percent"]);
    expect(await names({ search: "0%_e" })).toEqual(["Percent"]);
    expect(await names({ search: "_" })).toEqual(["Percent"]);
    expect(await names({ search: "nothing like it" })).toEqual([]);
    // Not across the boundary of name and description.
    expect(await names({ search: "toolsissues" })).toEqual([]);
    expect(await names({ search: "" })).toHaveLength(4);
  });

  it("keeps only entries carrying every tag asked for, tags compared exactly", async () => {
    await repos().catalog.create(entry("one", { tags: ["math", "local"] }));
    await repos().catalog.create(entry("two", { tags: ["math"] }));
    await repos().catalog.create(entry("three", { tags: ["local", "math", "beta"] }));
    await repos().catalog.create(entry("four", { tags: [] }));
    expect(await names({ tags: ["math"] })).toEqual(["one", "three", "two"]);
    expect(await names({ tags: ["math", "local"] })).toEqual(["one", "three"]);
    expect(await names({ tags: ["local", "math", "beta"] })).toEqual(["three"]);
    expect(await names({ tags: ["Math"] })).toEqual([]);
    expect(await names({ tags: ["math", "nope"] })).toEqual([]);
    expect(await names({ tags: [] })).toHaveLength(4);
    expect(await names({ tags: ["math"], search: "tHR" })).toEqual(["three"]);
  });

  it("pages with limit and offset, the total counting every match", async () => {
    for (const name of ["a", "b", "c", "d", "e"]) {
      await repos().catalog.create(entry(name, { tags: name === "c" ? [] : ["x"] }));
    }
    const page = async (query: Partial<CatalogQuery>) => {
      const listed = await repos().catalog.list({ ...everything, ...query });
      return [listed.entries.map((e) => e.name), listed.total];
    };
    expect(await page({ limit: 2, offset: 0 })).toEqual([["a", "b"], 5]);
    expect(await page({ limit: 2, offset: 2 })).toEqual([["c", "d"], 5]);
    expect(await page({ limit: 2, offset: 4 })).toEqual([["e"], 5]);
    expect(await page({ limit: 2, offset: 5 })).toEqual([[], 5]);
    expect(await page({ limit: 2, offset: Number.MAX_SAFE_INTEGER })).toEqual([[], 5]);
    expect(await page({ limit: 3, offset: 1, tags: ["x"] })).toEqual([["b", "d", "e"], 4]);
  });

  it("deletes an entry once, answering it, and frees its name and its tags", async () => {
    const math = entry("math", { tags: ["calc"] });
    await repos().catalog.create(math);
    expect(await repos().catalog.delete(math.entry_id)).toEqual(math);
    expect(await repos().catalog.delete(math.entry_id)).toBeUndefined();
    expect(await repos().catalog.get(math.entry_id)).toBeUndefined();
    expect(await repos().catalog.list({ ...everything, tags: ["calc"] })).toEqual({ entries: [], total: 0 });
    const again = entry("math");
    expect(await repos().catalog.create(again)).toBe(true);
    expect(await repos().catalog.list({ ...everything, tags: ["calc"] })).toEqual({ entries: [], total: 0 });
  });

  it("hands out copies: changing what it answered changes nothing stored", async () => {
    const math = entry("math", { tags: ["calc"], command: ["node", "x.mjs"] });
    await repos().catalog.create(math);
    const read = (await repos().catalog.get(math.entry_id)) as unknown as {
      tags: string[];
      command: string[];
    };
    read.tags.push("changed");
    read.command.push("changed");
    expect(await repos().catalog.get(math.entry_id)).toEqual(math);
  });
});
