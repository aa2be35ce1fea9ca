/**
 * The reload plan (spec 2 §3): which declared servers a new configuration adds, removes, modifies
 * or leaves untouched, which groups change, and which sections only a restart applies. Pure: no
 * I/O, both configurations already validated with their defaults applied.
 */
import type { GatewayConfig, GroupEntry, ServerEntry } from "./schema.js";
import { isGroupEntry } from "./schema.js";

/** The fields whose change replaces a server (old stopped, new registered cold); spec 2 §3. */
export const COMPARED_FIELDS = [
  "mode",
  "command",
  "image",
  "endpoint",
  "env",
  "volumes",
  "network",
  "user",
  "idle_ttl_s",
  "health_check_interval_s",
  "max_consecutive_failures",
  "args",
  "resources",
  "read_only",
  "build",
  "description",
  "auth",
  "tls",
  "http",
  "capabilities",
  "max_response_bytes",
  "mcp_revision",
] as const;

/**
 * Top-level sections a reload applies (spec 2 §3); `tool_access` is applied except its `mode`,
 * whose change refuses the reload. Every other section needs a restart.
 */
export const APPLIED_SECTIONS: ReadonlySet<string> = new Set([
  "mcp_servers",
  "tool_access",
  "execution",
  "headers",
  "resource_links",
  "interceptors",
  "ui_resources",
]);

/** The raw (pre-default) text of an entry, when known: where an explicit null or empty was written. */
export type RawEntry = Readonly<Record<string, unknown>> | undefined;

export interface ServerChange {
  readonly id: string;
  readonly fields: readonly string[];
}

export interface ReloadPlan {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly modified: readonly ServerChange[];
  readonly unchanged: readonly string[];
  /** Servers kept as they are whose live settings (`tools`, `access`, ...) differ. */
  readonly policyChanged: readonly string[];
  readonly groupsAdded: readonly string[];
  readonly groupsRemoved: readonly string[];
  readonly groupsChanged: readonly string[];
  /** Top-level sections that differ but only apply at the next start. */
  readonly restartSections: readonly string[];
  /** Why the reload must be refused as a whole; null when it may go on. */
  readonly refusal: string | null;
}

/** The configuration of both sides, with the parsed YAML documents when known. */
export interface DiffSide {
  readonly config: GatewayConfig;
  /** The YAML document as written (before defaults); used for the explicit-null rule. */
  readonly raw?: unknown;
}

const EMPTY = Symbol("empty");

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.values(value as object).every((v) => v === undefined);
  return false;
}

/**
 * The value a field is compared on. An absent, null or empty value is "empty" (so `env: {}` equals
 * the default `{}`); a field written as null or empty where the default filled in a non-empty value
 * counts as empty too, hence as a change against that default.
 */
function effective(parsed: unknown, raw: RawEntry, field: string): unknown {
  if (isEmpty(parsed)) return EMPTY;
  if (raw && Object.hasOwn(raw, field) && isEmpty(raw[field])) return EMPTY;
  return parsed;
}

/** Structural equality; keys holding `undefined` count as absent, arrays compare in order. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  const left = Object.entries(a).filter(([, v]) => v !== undefined);
  const right = Object.entries(b).filter(([, v]) => v !== undefined);
  if (left.length !== right.length) return false;
  const other = b as Record<string, unknown>;
  return left.every(([key, value]) => Object.hasOwn(other, key) && deepEqual(value, other[key]));
}

/** The compared fields that differ between two entries of one server, in `COMPARED_FIELDS` order. */
export function changedFields(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
  rawBefore?: RawEntry,
  rawAfter?: RawEntry,
): string[] {
  return COMPARED_FIELDS.filter(
    (field) =>
      !deepEqual(effective(before[field], rawBefore, field), effective(after[field], rawAfter, field)),
  );
}

/** Live settings of a server: applied without restart when they alone differ. */
const LIVE_FIELDS = ["tools", "access", "tool_access", "tool_projection", "header_exposure"];

/** Every server the file declares (top-level and inline group members), with its raw entry. */
export function declaredServers(side: DiffSide): Map<string, { entry: ServerEntry; raw: RawEntry }> {
  const servers = new Map<string, { entry: ServerEntry; raw: RawEntry }>();
  const rawServers = asRecord(asRecord(side.raw)?.mcp_servers);
  for (const [id, entry] of Object.entries(side.config.mcp_servers)) {
    const raw = asRecord(rawServers?.[id]);
    if (!isGroupEntry(entry)) {
      servers.set(id, { entry, raw });
      continue;
    }
    const rawMembers = Array.isArray(raw?.members) ? (raw.members as unknown[]) : [];
    entry.members.forEach((member, index) => {
      if (member.kind !== "inline") return;
      const rawMember = asRecord(rawMembers[index]);
      servers.set(member.id, { entry: member.server, raw: rawMember });
    });
  }
  return servers;
}

function declaredGroups(config: GatewayConfig): Map<string, GroupEntry> {
  const groups = new Map<string, GroupEntry>();
  for (const [id, entry] of Object.entries(config.mcp_servers))
    if (isGroupEntry(entry)) groups.set(id, entry);
  return groups;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * Compares the running configuration with a new one. A changed `tool_access.mode` sets `refusal`
 * (the topology is fixed at start); the rest of the plan is still filled in for reporting.
 */
export function diffConfigs(before: DiffSide, after: DiffSide): ReloadPlan {
  const oldServers = declaredServers(before);
  const newServers = declaredServers(after);
  const added: string[] = [];
  const removed: string[] = [];
  const modified: ServerChange[] = [];
  const unchanged: string[] = [];
  const policyChanged: string[] = [];
  for (const [id, next] of newServers) {
    const previous = oldServers.get(id);
    if (!previous) {
      added.push(id);
      continue;
    }
    const fields = changedFields(previous.entry, next.entry, previous.raw, next.raw);
    if (fields.length > 0) {
      modified.push({ id, fields });
      continue;
    }
    unchanged.push(id);
    const live = LIVE_FIELDS.some(
      (field) =>
        !deepEqual(
          (previous.entry as Record<string, unknown>)[field],
          (next.entry as Record<string, unknown>)[field],
        ),
    );
    if (live) policyChanged.push(id);
  }
  for (const id of oldServers.keys()) if (!newServers.has(id)) removed.push(id);

  const oldGroups = declaredGroups(before.config);
  const newGroups = declaredGroups(after.config);
  const groupsAdded = [...newGroups.keys()].filter((id) => !oldGroups.has(id));
  const groupsRemoved = [...oldGroups.keys()].filter((id) => !newGroups.has(id));
  const groupsChanged = [...newGroups].filter(([id, entry]) => {
    const previous = oldGroups.get(id);
    return previous !== undefined && !deepEqual(previous, entry);
  });

  const sections = new Set([...Object.keys(before.config), ...Object.keys(after.config)]);
  const restartSections = [...sections]
    .filter((section) => !APPLIED_SECTIONS.has(section))
    .filter(
      (section) =>
        !deepEqual(
          (before.config as Record<string, unknown>)[section],
          (after.config as Record<string, unknown>)[section],
        ),
    )
    .sort();

  const oldMode = before.config.tool_access.mode;
  const newMode = after.config.tool_access.mode;
  return {
    added,
    removed,
    modified,
    unchanged,
    policyChanged,
    groupsAdded,
    groupsRemoved,
    groupsChanged: groupsChanged.map(([id]) => id),
    restartSections,
    refusal:
      oldMode === newMode
        ? null
        : `tool_access.mode: changing it from '${oldMode}' to '${newMode}' needs a restart`,
  };
}
