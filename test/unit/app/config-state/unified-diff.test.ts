import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { unifiedDiff } from "../../../../src/app/config-state/unified-diff.js";

const dir = mkdtempSync(join(tmpdir(), "airlock-unified-diff-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The hunks `diff -u` prints for the two texts (its headers carry file names and times). */
function systemDiff(before: string, after: string): string {
  writeFileSync(join(dir, "a"), before);
  writeFileSync(join(dir, "b"), after);
  const out = spawnSync("diff", ["-u", join(dir, "a"), join(dir, "b")], { encoding: "utf8" }).stdout;
  return out.split("\n").slice(2).join("\n");
}

const hunks = (diff: string) => diff.split("\n").slice(2).join("\n");

/** Applies the hunks of a unified diff to `before`, as `patch` would. */
function apply(before: string, diff: string): string {
  const source = before === "" ? [] : before.replace(/\n$/, "").split("\n");
  const out: string[] = [];
  let next = 0;
  for (const line of diff.split("\n").slice(2)) {
    const header = /^@@ -(\d+)(?:,(\d+))? /.exec(line);
    if (header) {
      const start = Number(header[1]) - (header[2] === "0" ? 0 : 1);
      while (next < start) out.push(source[next++] as string);
    } else if (line.startsWith(" ")) {
      out.push(source[next++] as string);
    } else if (line.startsWith("-")) {
      next++;
    } else if (line.startsWith("+")) {
      out.push(line.slice(1));
    }
  }
  while (next < source.length) out.push(source[next++] as string);
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}

describe("unifiedDiff", () => {
  it("is empty for equal texts", () => {
    expect(unifiedDiff("a\nb\n", "a\nb\n", { before: "x", after: "y" })).toBe("");
  });

  it("prints the labels and the hunks diff -u prints", () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i}`)
      .join("\n")
      .concat("\n");
    const after = before.replace("line 3\n", "line three\n").replace("line 20\n", "").concat("tail\n");
    const diff = unifiedDiff(before, after, { before: "on_disk", after: "in_memory" });
    expect(diff.startsWith("--- on_disk\n+++ in_memory\n@@ ")).toBe(true);
    expect(hunks(diff)).toBe(systemDiff(before, after));
  });

  it("turns the first text into the second when applied, for any pair of texts", () => {
    const text = fc
      .array(fc.constantFrom("a", "b", "c", "d", "  e: 1", ""), { maxLength: 40 })
      .map((lines) => (lines.length === 0 ? "" : `${lines.join("\n")}\n`));
    fc.assert(
      fc.property(text, text, (before, after) => {
        expect(apply(before, unifiedDiff(before, after, { before: "a", after: "b" }))).toBe(after);
      }),
    );
  });
});
