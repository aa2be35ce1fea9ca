import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SERVER_ID_PATTERN } from "../../../src/domain/server/server-id.js";
import {
  carriesEveryTag,
  parseTagFilter,
  searchFold,
  serverIdFromName,
} from "../../../src/domain/server-catalog/catalog-entry.js";

const ENTRY_ID = "3f2a9c1e-7b4d-4e8f-9a0b-1c2d3e4f5a6b";

describe("the server id a catalog entry deploys under by default", () => {
  it.each([
    ["arithmetic", "arithmetic"],
    ["GitHub Tools", "github-tools"],
    ["  Café — Menu (beta) ", "cafe-menu-beta"],
    ["weather_v2.1", "weather_v2.1"],
    ["--Leading and trailing--", "leading-and-trailing"],
    ["..hidden", "hidden"],
    ["日本語", "entry-3f2a9c1e"],
    ["!!!", "entry-3f2a9c1e"],
  ])("makes %j into %j", (name, id) => {
    expect(serverIdFromName(name, ENTRY_ID)).toBe(id);
  });

  it("cuts a long name to the 128 characters a server id may have", () => {
    const id = serverIdFromName(`${"a".repeat(127)} b`, ENTRY_ID);
    expect(id).toBe("a".repeat(127));
  });

  it("always answers a valid server id, whatever the name", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300, unit: "grapheme" }), (name) => {
        expect(serverIdFromName(name, ENTRY_ID)).toMatch(SERVER_ID_PATTERN);
      }),
    );
  });
});

describe("the tags filter and search folding", () => {
  it("reads a comma-separated tags parameter, trimmed, without empty or repeated tags", () => {
    expect(parseTagFilter(undefined)).toEqual([]);
    expect(parseTagFilter("")).toEqual([]);
    expect(parseTagFilter(" math , local,,math, ")).toEqual(["math", "local"]);
  });

  it("keeps an entry only when it carries every tag asked for", () => {
    expect(carriesEveryTag({ tags: ["a", "b"] }, ["b", "a"])).toBe(true);
    expect(carriesEveryTag({ tags: ["a"] }, ["a", "b"])).toBe(false);
    expect(carriesEveryTag({ tags: [] }, [])).toBe(true);
  });

  it("folds case and compatibility forms, without regard to locale", () => {
    expect(searchFold("GitHub ÉTÉ")).toBe("github été");
    expect(searchFold("ＦＵＬＬ")).toBe("full");
  });
});
