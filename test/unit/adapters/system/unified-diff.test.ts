import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { unifiedDiff } from "../../../../src/adapters/system/unified-diff.js";

const dir = mkdtempSync(join(tmpdir(), "airlock-unified-diff-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `before` with the diff applied by the system's `patch`, which refuses a malformed or misplaced hunk. */
function systemPatch(before: string, diff: string): string {
  const file = join(dir, "a");
  writeFileSync(file, before);
  writeFileSync(join(dir, "a.diff"), diff);
  const run = spawnSync("patch", ["--silent", "--force", file, join(dir, "a.diff")], { encoding: "utf8" });
  expect(run.status, run.stderr + run.stdout).toBe(0);
  return readFileSync(file, "utf8");
}

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

  it("prints the labels and hunks that patch applies, with three lines of context", () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i}`)
      .join("\n")
      .concat("\n");
    const after = before.replace("line 3\n", "line three\n").replace("line 20\n", "").concat("tail\n");
    const diff = unifiedDiff(before, after, { before: "on_disk", after: "in_memory" });
    expect(diff.startsWith("--- on_disk\n+++ in_memory\n@@ ")).toBe(true);
    expect(diff).toContain("@@ -1,7 +1,7 @@\n line 0\n line 1\n line 2\n-line 3\n+line three\n line 4\n");
    expect(systemPatch(before, diff)).toBe(after);
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
