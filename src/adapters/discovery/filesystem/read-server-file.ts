import { parse } from "yaml";
import type { DiscoveredServer } from "../../../app/ports/discovery-source.js";
import { quote } from "../discovered-name.js";
import { isMapping, readServerEntries } from "../server-entries.js";

/**
 * Reads one definition file: a mapping with `mcp_servers` (see `readServerEntries`). YAML, and so
 * JSON too. Returns the servers it could read and a problem line for everything else.
 */
export function readServerFile(
  text: string,
  connectionInfo: Readonly<Record<string, unknown>>,
): { servers: DiscoveredServer[]; problems: string[] } {
  let document: unknown;
  try {
    document = parse(text, { prettyErrors: true, uniqueKeys: true });
  } catch (error) {
    // The first line names the rule and the position; the rest quotes the file, which may hold secrets.
    const line = (error instanceof Error ? error.message : String(error))
      .split("\n", 1)[0]
      ?.replace(/:$/, "");
    return { servers: [], problems: [`is not valid YAML or JSON: ${line}`] };
  }
  if (!isMapping(document) || !("mcp_servers" in document))
    return { servers: [], problems: ["must be a mapping with mcp_servers (no server found)"] };
  const ignored = Object.keys(document)
    .filter((key) => key !== "mcp_servers")
    .map((key) => `key ${quote(key)} is not read (only mcp_servers is); ignored`);
  const read = readServerEntries(document.mcp_servers, connectionInfo);
  return { servers: read.servers, problems: [...ignored, ...read.problems] };
}
