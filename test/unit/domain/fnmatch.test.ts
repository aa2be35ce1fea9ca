import { describe, expect, it } from "vitest";
import { fnmatch, matchesAny } from "../../../src/domain/policy/fnmatch.js";

describe("fnmatch globs on tool names", () => {
  it.each([
    ["read_file", "read_*", true],
    ["read_file", "*_file", true],
    ["read_file", "read_fil?", true],
    ["read_file", "read_[fg]ile", true],
    ["read_gile", "read_[!f]ile", true],
    ["read_file", "read_[!f]ile", false],
    ["read_file", "write_*", false],
    ["Read_file", "read_*", false],
    ["a.b", "a.b", true],
    ["axb", "a.b", false],
    ["x(y)", "x(y)", true],
    ["a[b", "a[b", true],
    ["anything", "*", true],
    ["", "*", true],
    ["ab", "a", false],
  ])("%s against %s is %s", (name, pattern, expected) => {
    expect(fnmatch(name, pattern)).toBe(expected);
  });

  it("matchesAny is true when one pattern matches", () => {
    expect(matchesAny("delete_all", ["read_*", "delete_*"])).toBe(true);
    expect(matchesAny("delete_all", [])).toBe(false);
  });
});
