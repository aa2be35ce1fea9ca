import { readdir, readFile, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { watch } from "chokidar";
import type {
  DiscoveredServer,
  DiscoveryScan,
  DiscoverySource,
} from "../../../app/ports/discovery-source.js";
import { fnmatch } from "../../../domain/policy/fnmatch.js";
import { quote } from "../discovered-name.js";
import { DiscoverySourceError, throwIfAborted } from "../discovery-source-error.js";
import { ScanCollector } from "../scan-collector.js";
import { readServerFile } from "./read-server-file.js";

/** A definition file larger than this is a problem line, not read: it cannot be a few servers. */
export const MAX_DEFINITION_FILE_BYTES = 1024 * 1024;

export interface FilesystemDiscoveryOptions {
  /** The directory, as configured (a relative one is read against the working directory). */
  readonly path: string;
  /** fnmatch glob on file names (`*.yaml`, `*.json`, `*.y*ml`); default `*.yaml`. */
  readonly pattern?: string;
}

/**
 * Definition files in one directory (not its subdirectories): every file whose name matches
 * `pattern` holds `mcp_servers` entries in the configuration file's shape.
 *
 * Guaranteed: files are read in name order, so when two declare one name the first file wins and
 * the other is a problem line; a file that cannot be read or parsed is a problem line naming it,
 * and the other files still count; a missing or unreadable directory rejects the scan. `watch`
 * fires for each change to a matching file (added, changed, removed); the discovery service waits
 * for a burst to end before it scans.
 */
export class FilesystemDiscoverySource implements DiscoverySource {
  readonly type = "filesystem" as const;
  private readonly pattern: string;

  constructor(private readonly options: FilesystemDiscoveryOptions) {
    this.pattern = options.pattern ?? "*.yaml";
  }

  async scan(signal: AbortSignal): Promise<DiscoveryScan> {
    let names: string[];
    try {
      const entries = await readdir(this.options.path, { withFileTypes: true });
      names = entries
        .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && fnmatch(entry.name, this.pattern))
        .map((entry) => entry.name)
        .sort();
    } catch (error) {
      throw new DiscoverySourceError(
        `cannot read the directory ${quote(this.options.path)} (${codeOf(error) ?? "unreadable"})`,
      );
    }
    const collector = new ScanCollector<DiscoveredServer>();
    for (const name of names) {
      throwIfAborted(signal);
      const file = join(this.options.path, name);
      const item = `file ${quote(name)}`;
      let text: string;
      try {
        text = await this.read(file, signal);
      } catch (error) {
        throwIfAborted(signal);
        const reason = error instanceof UnreadableFile ? error.message : (codeOf(error) ?? "unreadable");
        collector.problem(`${item}: cannot be read (${reason})`);
        continue;
      }
      const read = readServerFile(text, { file });
      for (const problem of read.problems) collector.problem(`${item}: ${problem}`);
      for (const server of read.servers) collector.add(server, `${item} (mcp_servers.${server.name})`);
    }
    return { servers: collector.servers, problems: collector.problems };
  }

  watch(onChange: () => void): () => void {
    let stopped = false;
    const watcher = watch(this.options.path, { ignoreInitial: true, depth: 0 });
    watcher.on("all", (_event, changed) => {
      if (!stopped && fnmatch(basename(changed), this.pattern)) onChange();
    });
    // A watcher failure (directory removed, too many watches) must not crash the process; the
    // refresh interval still scans, and the scan reports a missing directory.
    watcher.on("error", () => {});
    return () => {
      stopped = true;
      void watcher.close();
    };
  }

  private async read(file: string, signal: AbortSignal): Promise<string> {
    const info = await stat(file);
    if (!info.isFile()) throw new UnreadableFile("not a regular file");
    if (info.size > MAX_DEFINITION_FILE_BYTES)
      throw new UnreadableFile(`larger than ${MAX_DEFINITION_FILE_BYTES} bytes`);
    return readFile(file, { encoding: "utf8", signal });
  }
}

/** Why a matching file is not read, in words safe to show. */
class UnreadableFile extends Error {}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
