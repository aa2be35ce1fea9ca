import { readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type {
  DiscoveredServer,
  DiscoveryScan,
  DiscoverySource,
} from "../../../app/ports/discovery-source.js";
import { quote } from "../discovered-name.js";
import { DiscoverySourceError, throwIfAborted } from "../discovery-source-error.js";
import { ScanCollector } from "../scan-collector.js";
import { isMapping } from "../server-entries.js";
import { readPackageDeclaration } from "./package-declaration.js";

export interface EntrypointDiscoveryOptions {
  /** The `node_modules` directory to read, as configured (relative: against the working directory). */
  readonly nodeModules: string;
}

/** package.json files read at once: enough to overlap the disk, few enough to spare descriptors. */
const READ_CONCURRENCY = 32;

/** A package.json larger than this is a problem line: no manifest is that large. */
const MAX_MANIFEST_BYTES = 1024 * 1024;

/**
 * Installed Node packages that declare MCP servers: every `node_modules/<name>` and
 * `node_modules/@scope/<name>` whose package.json has `"airlock": {"mcp_servers": {...}}` (see
 * `readPackageDeclaration` for how paths are resolved). Nested `node_modules` are not read.
 *
 * Guaranteed: packages are read in name order, so when two declare one server name the first
 * wins and the other is a problem line; a package.json that is not JSON, or an `airlock` key of the
 * wrong shape, is a problem line; a package without `airlock` is skipped silently. A missing or
 * unreadable `node_modules` rejects the scan.
 */
export class EntrypointDiscoverySource implements DiscoverySource {
  readonly type = "entrypoint" as const;
  private readonly root: string;

  constructor(private readonly options: EntrypointDiscoveryOptions) {
    this.root = resolve(options.nodeModules);
  }

  async scan(signal: AbortSignal): Promise<DiscoveryScan> {
    const packages = await this.packageNames();
    const collector = new ScanCollector<DiscoveredServer>();
    for (let start = 0; start < packages.length; start += READ_CONCURRENCY) {
      throwIfAborted(signal);
      const batch = packages.slice(start, start + READ_CONCURRENCY);
      const manifests = await Promise.all(batch.map((name) => this.readManifest(name, signal)));
      batch.forEach((name, index) => {
        const manifest = manifests[index];
        const item = `package ${quote(name)}`;
        if (manifest === undefined) return;
        if (typeof manifest === "string") {
          collector.problem(`${item}: package.json ${manifest}`);
          return;
        }
        const version = typeof manifest.version === "string" ? manifest.version : null;
        const read = readPackageDeclaration(manifest, join(this.root, name), { package: name, version });
        if (!read) return;
        for (const problem of read.problems) collector.problem(`${item}: ${problem}`);
        for (const server of read.servers) collector.add(server, `${item} (mcp_servers.${server.name})`);
      });
    }
    return { servers: collector.servers, problems: collector.problems };
  }

  /** `name` and `@scope/name` of every installed package, sorted. */
  private async packageNames(): Promise<string[]> {
    let entries: Awaited<ReturnType<typeof directories>>;
    try {
      entries = await directories(this.root);
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      throw new DiscoverySourceError(
        `cannot read node_modules ${quote(this.options.nodeModules)} (${typeof code === "string" ? code : "unreadable"})`,
      );
    }
    const names: string[] = [];
    for (const entry of entries) {
      // `.bin`, `.package-lock.json`, `.cache`: npm's own, never packages.
      if (entry.startsWith(".")) continue;
      if (!entry.startsWith("@")) {
        names.push(entry);
        continue;
      }
      // A scope that vanished or cannot be read holds nothing we can report on.
      const scoped = await directories(join(this.root, entry)).catch(() => []);
      for (const name of scoped) if (!name.startsWith(".")) names.push(`${entry}/${name}`);
    }
    return names.sort();
  }

  /**
   * The parsed package.json; a string saying what is wrong with it; undefined when the directory
   * has none (not a package).
   */
  private async readManifest(
    name: string,
    signal: AbortSignal,
  ): Promise<Record<string, unknown> | string | undefined> {
    let text: string;
    try {
      text = await readFile(join(this.root, name, "package.json"), { encoding: "utf8", signal });
    } catch (error) {
      throwIfAborted(signal);
      const code = (error as { code?: unknown } | null)?.code;
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      return `cannot be read (${typeof code === "string" ? code : "unreadable"})`;
    }
    if (text.length > MAX_MANIFEST_BYTES) return `is larger than ${MAX_MANIFEST_BYTES} bytes`;
    // Only a manifest that mentions the key is parsed: most packages never will.
    if (!text.includes('"airlock"')) return undefined;
    try {
      const manifest: unknown = JSON.parse(text);
      return isMapping(manifest) ? manifest : "is not a JSON object";
    } catch (error) {
      return `is not valid JSON: ${(error as Error).message.split("\n", 1)[0]}`;
    }
  }
}

/** Names of the directories (and links, which may point at one) in `path`. */
async function directories(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true });
  return entries.filter((entry) => entry.isDirectory() || entry.isSymbolicLink()).map((entry) => entry.name);
}
