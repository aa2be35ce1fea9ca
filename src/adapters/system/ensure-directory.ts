import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Creates a directory and its missing parents, like `mkdirSync(path, {recursive: true})`, but fails
 * where that one never returns: Node's recursive mkdir retries forever when the parent exists and
 * still refuses a child with ENOENT (`/proc/anything/file.db`), spinning the CPU at start-up. Here
 * each level is made once, from the deepest existing one down; an error names the directory and
 * carries the system's code (`ENOENT`, `EACCES`, `ENOTDIR`, `EROFS`).
 */
export function ensureDirectory(path: string): void {
  try {
    mkdirSync(path);
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST" && isDirectory(path)) return;
    const parent = dirname(path);
    if (code !== "ENOENT" || parent === path) throw error;
  }
  ensureDirectory(dirname(path));
  try {
    mkdirSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST" && isDirectory(path)) return;
    throw error;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
