/**
 * Configuration problems as the operator sees them: a dotted path, a message saying the rule, and
 * a stable code. Also turns zod issues into warnings (with the repair the loader applies) or
 * refusals.
 */
import { distance } from "fastest-levenshtein";
import type * as z from "zod";
import type { WarningFix, WarningParams } from "./schema/primitives.js";
import { TOP_LEVEL_KEYS } from "./schema.js";

/** One problem of a configuration: `mcp_servers.math.idle_ttl_s: must be an integer between 1 and 86400`. */
export interface ConfigIssue {
  /** Dotted path (`mcp_servers.math.members[0].weight`), an environment variable or a CLI flag. */
  readonly path: string;
  readonly message: string;
  /** Stable code: `invalid_value`, `missing_required_key`, `unknown_config_key`, `yaml_syntax`, ... */
  readonly code: string;
}

const PLAIN_SEGMENT = /^[A-Za-z0-9_*-]+$/;

/** Formats a path: keys joined by dots, indices in brackets, unusual keys quoted. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else {
      const key = String(segment);
      if (PLAIN_SEGMENT.test(key)) text += text === "" ? key : `.${key}`;
      else text += `[${JSON.stringify(key)}]`;
    }
  }
  return text === "" ? "(root)" : text;
}

/** Old names that an operator may still write; named in the unknown-key message. */
const RENAMED_KEYS: Readonly<Record<string, string>> = {
  providers: "mcp_servers",
  default_provider_concurrency: "default_mcp_server_concurrency",
};

/** Where an unknown key is checked (spec): top-level sections, their keys, server entry keys. */
function isCheckedLevel(path: readonly PropertyKey[]): boolean {
  if (path.length <= 2) return true;
  if (path[0] !== "mcp_servers") return false;
  // mcp_servers.<id>.<key>, and the keys of an inline group member, which is a server entry.
  return path.length === 3 || (path.length === 5 && path[2] === "members" && typeof path[3] === "number");
}

/** A repair of the raw document that lets the next validation pass accept it. */
export interface RawFix {
  readonly path: readonly PropertyKey[];
  readonly fix: WarningFix;
}

export interface ClassifiedIssues {
  readonly errors: ConfigIssue[];
  readonly warnings: ConfigIssue[];
  readonly fixes: RawFix[];
}

/** Misspellings this close to a section name are named in the message. */
const MAX_SUGGESTION_DISTANCE = 2;

function hintFor(path: readonly PropertyKey[], key: string): string {
  // Own keys only: `constructor` or `__proto__` are unknown keys, not renames.
  if (Object.hasOwn(RENAMED_KEYS, key)) return ` (renamed ${RENAMED_KEYS[key]})`;
  if (path.length !== 1) return "";
  const close = TOP_LEVEL_KEYS.find((known) => distance(known, key) <= MAX_SUGGESTION_DISTANCE);
  return close === undefined ? "" : ` (did you mean ${close}?)`;
}

function unknownKeyMessage(path: readonly PropertyKey[], key: string, strict: boolean): string {
  const hint = hintFor(path, key);
  return strict ? `unknown key${hint}; refused in strict mode` : `unknown key${hint}; ignored`;
}

function errorCode(issue: z.core.$ZodIssue): string {
  const params = (issue as { params?: { code?: unknown } }).params;
  if (typeof params?.code === "string") return params.code;
  return issue.message.startsWith("is required") ? "missing_required_key" : "invalid_value";
}

function messageOf(issue: z.core.$ZodIssue): string {
  // A refused record key: zod wraps the key's own issue.
  if (issue.code === "invalid_key") return issue.issues[0]?.message ?? issue.message;
  return issue.message;
}

/**
 * Sorts zod issues into refusals and warnings. Unknown keys are warnings (refusals in strict mode
 * at the checked levels); every warning comes with the repair the next pass needs.
 */
export function classifyIssues(issues: readonly z.core.$ZodIssue[], strict: boolean): ClassifiedIssues {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const fixes: RawFix[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const path = [...issue.path, key];
        const checked = isCheckedLevel(path);
        const refused = checked && strict;
        const entry = {
          path: formatPath(path),
          message: unknownKeyMessage(path, key, refused),
          code: checked ? "unknown_config_key" : "unknown_nested_config_key",
        };
        (refused ? errors : warnings).push(entry);
        fixes.push({ path, fix: { kind: "delete" } });
      }
      continue;
    }
    const params = (issue as { params?: Partial<WarningParams> }).params;
    if (params?.warning !== undefined && params.fix !== undefined) {
      const unknown = params.warning === "unknown_config_key";
      const refused = strict && unknown;
      const message = unknown
        ? `${issue.message}; ${refused ? "refused in strict mode" : "ignored"}`
        : issue.message;
      const entry = { path: formatPath(issue.path), message, code: params.warning };
      (refused ? errors : warnings).push(entry);
      fixes.push({ path: issue.path, fix: params.fix });
      continue;
    }
    errors.push({ path: formatPath(issue.path), message: messageOf(issue), code: errorCode(issue) });
  }
  return { errors, warnings, fixes };
}

/** Applies repairs to a copy of the raw document (never to the caller's value). */
export function applyFixes(raw: unknown, fixes: readonly RawFix[]): unknown {
  const copy = structuredClone(raw);
  for (const { path, fix } of fixes) {
    if (path.length === 0) continue;
    let parent: unknown = copy;
    for (const segment of path.slice(0, -1)) {
      parent = (parent as Record<PropertyKey, unknown> | undefined)?.[segment];
    }
    if (typeof parent !== "object" || parent === null) continue;
    const last = path[path.length - 1] as PropertyKey;
    const container = parent as Record<PropertyKey, unknown>;
    if (fix.kind === "delete") delete container[last];
    else container[last] = fix.value;
  }
  return copy;
}
