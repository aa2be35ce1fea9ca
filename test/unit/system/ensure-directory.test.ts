import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureDirectory } from "../../../src/adapters/system/ensure-directory.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ensure-dir-"));
  made.push(dir);
  return dir;
}

describe("ensureDirectory", () => {
  it("creates the directory and its missing parents, and accepts one that exists", () => {
    const path = join(tempDir(), "a", "b", "c");
    ensureDirectory(path);
    expect(statSync(path).isDirectory()).toBe(true);
    expect(() => ensureDirectory(path)).not.toThrow();
  });

  it("refuses a path through a file with the system's code", () => {
    const file = join(tempDir(), "file");
    writeFileSync(file, "x");
    expect(() => ensureDirectory(join(file, "sub"))).toThrow(expect.objectContaining({ code: "ENOTDIR" }));
    expect(() => ensureDirectory(file)).toThrow(expect.objectContaining({ code: "EEXIST" }));
  });

  it("fails at once where the parent exists and refuses the child (Node's recursive mkdir spins there)", () => {
    expect(() => ensureDirectory("/proc/nonexistent/deeper")).toThrow(
      expect.objectContaining({ code: "ENOENT" }),
    );
  });
});
