/**
 * The `mcp_servers` map: ids to servers or groups. Groups need to know the other ids (a member
 * naming a declared server is a reference), so each entry is parsed here by hand and its issues are
 * forwarded with their full path.
 */
import * as z from "zod";
import { type DeclaredEntries, type GroupEntry, groupEntrySchema } from "./groups.js";
import { addError, isPlainObject } from "./primitives.js";
import {
  normalizeMode,
  parseServerEntry,
  SERVER_ID_PATTERN,
  SERVER_ID_RULE,
  type ServerEntry,
} from "./servers.js";
import { forwardIssues } from "./tool-policy.js";

export type McpServerEntry = ServerEntry | GroupEntry;

/** True when the entry is a group (`mode: group`). */
export function isGroupEntry(entry: McpServerEntry): entry is GroupEntry {
  return entry.mode === "group";
}

/** True when the entry is a runnable server (not a group). */
export function isServerEntry(entry: McpServerEntry): entry is ServerEntry {
  return entry.mode !== "group";
}

function declaredEntries(raw: Record<string, unknown>): DeclaredEntries {
  const declared = new Map<string, "server" | "group">();
  for (const [id, entry] of Object.entries(raw)) {
    declared.set(id, isPlainObject(entry) && entry.mode === "group" ? "group" : "server");
  }
  return declared;
}

/** `mcp_servers`: absent or empty means no server is declared. */
export const mcpServersSchema = z
  .unknown()
  .transform((value, ctx): Record<string, McpServerEntry> => {
    if (value === undefined || value === null) return {};
    if (!isPlainObject(value)) {
      addError(ctx, [], "must be a mapping of server ids to server entries");
      return {};
    }
    const declared = declaredEntries(value);
    const groupSchema = groupEntrySchema(declared);
    const entries: Record<string, McpServerEntry> = {};
    for (const [id, entry] of Object.entries(value)) {
      if (!SERVER_ID_PATTERN.test(id)) {
        addError(ctx, [id], SERVER_ID_RULE);
        continue;
      }
      if (isPlainObject(entry) && normalizeMode(entry.mode) === "group") {
        const parsed = groupSchema.safeParse(entry);
        if (parsed.success) entries[id] = parsed.data;
        else forwardIssues(ctx, parsed.error.issues, [id]);
        continue;
      }
      const server = parseServerEntry(entry, ctx, [id]);
      if (server !== undefined) entries[id] = server;
    }
    return entries;
  })
  .default(() => ({}));
