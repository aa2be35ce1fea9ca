import { resolve } from "node:path";
import type { DiscoveredServer } from "../../../app/ports/discovery-source.js";
import { isMapping, readServerEntries } from "../server-entries.js";

/** Replaced by the package's directory in `command`, `args` and `env` values. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder is literal text of package.json.
export const PACKAGE_DIR_PLACEHOLDER = "${package_dir}";

/**
 * Reads the `airlock` key of an installed package's package.json:
 * `{"airlock": {"mcp_servers": {"<id>": {...}}}}`, each entry in the configuration file's shape.
 * A package runs from its own directory, so:
 * - `${package_dir}` in `command`, `args` and `env` values becomes the package directory;
 * - for a subprocess server (no `mode`, or `subprocess`), an item of `command` or `args` starting
 *   with `./` or `../` is resolved against the package directory (`["node", "./dist/server.js"]`).
 *   For other modes such paths are left alone: they name paths inside a container, or nothing.
 * Returns undefined when the package declares nothing.
 */
export function readPackageDeclaration(
  manifest: Record<string, unknown>,
  packageDir: string,
  connectionInfo: Readonly<Record<string, unknown>>,
): { servers: DiscoveredServer[]; problems: string[] } | undefined {
  const declaration = manifest.airlock;
  if (declaration === undefined) return undefined;
  if (!isMapping(declaration) || !("mcp_servers" in declaration))
    return { servers: [], problems: ['"airlock" must be a mapping with mcp_servers'] };
  const read = readServerEntries(declaration.mcp_servers, connectionInfo);
  return {
    problems: read.problems,
    servers: read.servers.map((server) => ({
      ...server,
      definition: resolvePaths(server.definition, packageDir),
    })),
  };
}

function resolvePaths(
  definition: Readonly<Record<string, unknown>>,
  packageDir: string,
): Record<string, unknown> {
  const subprocess = definition.mode === undefined || definition.mode === "subprocess";
  const expand = (value: unknown) =>
    typeof value === "string" ? value.split(PACKAGE_DIR_PLACEHOLDER).join(packageDir) : value;
  const relative = (value: unknown) =>
    typeof value === "string" && subprocess && /^\.\.?\//.test(value) ? resolve(packageDir, value) : value;
  const out: Record<string, unknown> = { ...definition };
  if (Array.isArray(definition.command))
    out.command = definition.command.map((item) => relative(expand(item)));
  if (Array.isArray(definition.args)) out.args = definition.args.map((item) => relative(expand(item)));
  if (isMapping(definition.env)) {
    out.env = Object.fromEntries(Object.entries(definition.env).map(([key, value]) => [key, expand(value)]));
  }
  return out;
}
