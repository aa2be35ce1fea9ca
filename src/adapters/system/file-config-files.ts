import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { access, copyFile, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { parse, stringify } from "yaml";
import type { ConfigFiles } from "../../app/ports/config-files.js";
import { configFileUnavailable } from "../../domain/errors.js";
import { unifiedDiff } from "./unified-diff.js";

/** Backups kept beside the file (`.bak1` newest to `.bak10` oldest); an eleventh is deleted. */
export const KEPT_BACKUPS = 10;

/**
 * `ConfigFiles` on the local file system. A backup is copied to a temporary name first, so an
 * unreadable file or a full disk leaves the existing backups as they were; only then are they
 * rotated and the copy renamed to `.bak1`. Backups of one gateway run one after another: two at
 * once would rename the same files under each other.
 */
export class FileConfigFiles implements ConfigFiles {
  /** The backup under way, if any; the next one starts after it. */
  private backups: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string) {}

  async readDocument(): Promise<unknown> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      throw this.unreadable(error);
    }
    try {
      return parse(text, { merge: true }) ?? null;
    } catch (error) {
      const reason = (error as Error).message.split("\n")[0];
      throw configFileUnavailable(`configuration file ${this.path} is not valid YAML: ${reason}`);
    }
  }

  /** Why the file cannot be read, for the 503 answer. */
  private unreadable(error: unknown): Error {
    return configFileUnavailable(
      errno(error) === "ENOENT"
        ? `configuration file not found: ${this.path}`
        : `configuration file ${this.path} cannot be read (${errno(error)})`,
    );
  }

  backup(): Promise<string> {
    const run = this.backups.then(() => this.backupNow());
    this.backups = run.catch(() => undefined);
    return run;
  }

  private async backupNow(): Promise<string> {
    const directory = dirname(this.path);
    try {
      await access(this.path, constants.R_OK);
    } catch (error) {
      throw this.unreadable(error);
    }
    try {
      await access(directory, constants.W_OK);
    } catch (error) {
      throw configFileUnavailable(`directory ${directory} is not writable (${errno(error)})`);
    }
    const pending = join(directory, `.${basename(this.path)}.bak-${randomUUID()}`);
    try {
      await copyFile(this.path, pending);
    } catch (error) {
      await rm(pending, { force: true }).catch(() => undefined);
      throw configFileUnavailable(`cannot write a backup in ${directory} (${errno(error)})`);
    }
    try {
      await rm(this.backupPath(KEPT_BACKUPS), { force: true });
      for (let n = KEPT_BACKUPS - 1; n >= 1; n--) {
        await rename(this.backupPath(n), this.backupPath(n + 1)).catch((error) => {
          if (errno(error) !== "ENOENT") throw error;
        });
      }
      await rename(pending, this.backupPath(1));
    } catch (error) {
      await rm(pending, { force: true }).catch(() => undefined);
      throw configFileUnavailable(`cannot rotate the backups in ${directory} (${errno(error)})`);
    }
    return this.backupPath(1);
  }

  format(document: unknown): string {
    // No anchors for repeated mappings (merge keys resolved): every entry reads on its own.
    return stringify(document ?? {}, { aliasDuplicateObjects: false, lineWidth: 0 });
  }

  unifiedDiff(before: string, after: string, labels: { before: string; after: string }): string {
    return unifiedDiff(before, after, labels);
  }

  private backupPath(n: number): string {
    return `${this.path}.bak${n}`;
  }
}

function errno(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? "unknown error";
}
