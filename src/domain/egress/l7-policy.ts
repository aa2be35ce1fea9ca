import { fnmatch } from "../policy/fnmatch.js";
import {
  isSecretPatternGroup,
  SECRET_PATTERN_GROUP_NAMES,
  type SecretPatternGroup,
} from "./secret-patterns.js";

/** The three rule kinds of the `tools` and `headers` sections. */
export type RuleKind = "allow" | "deny" | "requireApproval";

/** Rule kinds strongest first: a deny beats a hold, a hold beats an allow. */
export const RULE_PRECEDENCE: readonly RuleKind[] = ["deny", "requireApproval", "allow"];

export interface RuleLists<T> {
  readonly allow: readonly T[];
  readonly deny: readonly T[];
  readonly requireApproval: readonly T[];
}

/** A selector on one `Mcp-Param-<Name>` header: matches when its value matches one of the globs. */
export interface HeaderMatch {
  readonly name: string;
  readonly values: readonly string[];
}

/**
 * An L7 egress policy with every section present (spec 1 "L7 egress policy"). This object, as
 * RFC 8785 canonical JSON, is what the `policyId` digest covers.
 */
export interface L7Policy {
  /** fnmatch globs on the bare tool name. */
  readonly tools: RuleLists<string>;
  readonly headers: RuleLists<HeaderMatch>;
  readonly arguments: {
    readonly secretPatterns: readonly SecretPatternGroup[];
    /** Largest JSON encoding of the arguments, in UTF-8 bytes; null: no limit. */
    readonly maxPayloadBytes: number | null;
  };
  /** The verdict when no tool or header rule matches. */
  readonly defaultAction: "Allow" | "Deny";
  /** `Audit` records verdicts and never refuses; `Enforce` applies them. */
  readonly mode: "Audit" | "Enforce";
}

export interface PolicyIssue {
  /** Where in the document: `tools.deny[2]`, `arguments.secretPatterns[0]`, ... */
  readonly field: string;
  readonly rule: string;
}

export type CompileResult =
  | { readonly ok: true; readonly policy: L7Policy }
  | { readonly ok: false; readonly issues: readonly PolicyIssue[] };

/** Entries per rule list; a policy is evaluated on every call, so one document stays small. */
export const LIST_MAX = 1000;
/** Characters of one glob or header name. */
export const PATTERN_MAX_CHARS = 256;
/** `maxPayloadBytes` is an integer JavaScript represents exactly. */
const PAYLOAD_MAX = Number.MAX_SAFE_INTEGER;

const TOP_FIELDS = ["tools", "headers", "arguments", "defaultAction", "mode"] as const;
/** Read back from GET and accepted on the way in (so a read policy can be sent again); recomputed. */
const DERIVED_FIELDS = new Set(["policyId"]);
const RULE_FIELDS = ["allow", "deny", "requireApproval"] as const;
const ARGUMENT_FIELDS = ["secretPatterns", "maxPayloadBytes"] as const;
const HEADER_FIELDS = ["name", "values"] as const;
/** `Mcp-Param-` and an RFC 9110 token: the headers that mirror tool arguments (SEP-2243). */
const PARAM_HEADER = /^mcp-param-[!#$%&'*+.^_`|~0-9A-Za-z-]+$/i;

/** A surrogate code unit that is not half of a pair (a `u` pattern reads a pair as one code point). */
const LONE_SURROGATE = /\p{Cs}/u;

const GLOB_RULE = `must be a non-empty fnmatch pattern of at most ${PATTERN_MAX_CHARS} characters`;

/** The policy every section of which is at its default: no rules, default action Deny, Enforce. */
export const DEFAULT_L7_POLICY: L7Policy = Object.freeze({
  tools: Object.freeze({ allow: [], deny: [], requireApproval: [] }),
  headers: Object.freeze({ allow: [], deny: [], requireApproval: [] }),
  arguments: Object.freeze({ secretPatterns: [], maxPayloadBytes: null }),
  defaultAction: "Deny",
  mode: "Enforce",
});

/**
 * Validates a policy document and fills in every default. Absent or null sections and lists are
 * empty; `defaultAction` is `Allow` or `Deny` (default `Deny`); `mode` is `Audit` exactly, any other
 * value or none meaning `Enforce` (spec 1). Unknown fields, malformed globs, header selectors on
 * anything but `Mcp-Param-*` headers and unknown secret pattern groups are issues naming the field
 * and the rule. Duplicate list entries are dropped; order is kept.
 */
export function compileL7Policy(document: unknown): CompileResult {
  const issues: PolicyIssue[] = [];
  const report = (field: string, rule: string) => void issues.push({ field, rule });
  if (!isObject(document)) {
    report("(body)", "must be a JSON object");
    return { ok: false, issues };
  }
  unknownFields(document, "", [...TOP_FIELDS], report, DERIVED_FIELDS);
  const tools = ruleLists(document.tools, "tools", report, (value, field) => glob(value, field, report));
  const headers = ruleLists(document.headers, "headers", report, (value, field) =>
    headerMatch(value, field, report),
  );
  const args = argumentRules(document.arguments, report);
  const defaultAction = document.defaultAction ?? "Deny";
  if (defaultAction !== "Allow" && defaultAction !== "Deny") {
    report("defaultAction", `must be Allow or Deny (got ${describe(defaultAction)})`);
  }
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    policy: {
      tools,
      headers,
      arguments: args,
      defaultAction: defaultAction as "Allow" | "Deny",
      mode: document.mode === "Audit" ? "Audit" : "Enforce",
    },
  };
}

type Report = (field: string, rule: string) => void;

function ruleLists<T>(
  value: unknown,
  section: string,
  report: Report,
  entry: (value: unknown, field: string) => T | undefined,
): RuleLists<T> {
  if (value === undefined || value === null) return { allow: [], deny: [], requireApproval: [] };
  if (!isObject(value)) {
    report(section, "must be an object with allow, deny and requireApproval lists");
    return { allow: [], deny: [], requireApproval: [] };
  }
  unknownFields(value, section, [...RULE_FIELDS], report);
  const list = (kind: RuleKind) => listOf(value[kind], `${section}.${kind}`, report, entry);
  return { allow: list("allow"), deny: list("deny"), requireApproval: list("requireApproval") };
}

function listOf<T>(
  value: unknown,
  field: string,
  report: Report,
  entry: (value: unknown, field: string) => T | undefined,
): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    report(field, "must be a list");
    return [];
  }
  if (value.length > LIST_MAX) {
    report(field, `must list at most ${LIST_MAX} entries`);
    return [];
  }
  const out: T[] = [];
  const seen = new Set<string>();
  value.forEach((item, index) => {
    const compiled = entry(item, `${field}[${index}]`);
    if (compiled === undefined) return;
    const key = JSON.stringify(compiled);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(compiled);
  });
  return out;
}

function glob(value: unknown, field: string, report: Report): string | undefined {
  if (typeof value !== "string" || value.length === 0 || value.length > PATTERN_MAX_CHARS) {
    report(field, GLOB_RULE);
    return undefined;
  }
  // A lone surrogate has no UTF-8 form: the policy could be neither stored nor digested.
  if (LONE_SURROGATE.test(value)) {
    report(field, "must be well-formed Unicode text (it holds a lone surrogate)");
    return undefined;
  }
  try {
    fnmatch("", value);
  } catch {
    report(field, "is not a valid fnmatch pattern");
    return undefined;
  }
  return value;
}

function headerMatch(value: unknown, field: string, report: Report): HeaderMatch | undefined {
  if (!isObject(value)) {
    report(field, "must be an object {name, values}");
    return undefined;
  }
  unknownFields(value, field, [...HEADER_FIELDS], report);
  const { name } = value;
  let valid = true;
  if (typeof name !== "string" || name.length > PATTERN_MAX_CHARS || !PARAM_HEADER.test(name)) {
    report(
      `${field}.name`,
      "must name an Mcp-Param-<Name> header (the headers that mirror tool arguments); other headers " +
        "are not selectable",
    );
    valid = false;
  }
  if (!Array.isArray(value.values) || value.values.length === 0) {
    report(`${field}.values`, "must be a non-empty list of fnmatch patterns on the header's value");
    return undefined;
  }
  const values = listOf(value.values, `${field}.values`, report, (item, itemField) =>
    glob(item, itemField, report),
  );
  return valid ? { name: name as string, values } : undefined;
}

function argumentRules(value: unknown, report: Report): L7Policy["arguments"] {
  if (value === undefined || value === null) return { secretPatterns: [], maxPayloadBytes: null };
  if (!isObject(value)) {
    report("arguments", "must be an object with secretPatterns and maxPayloadBytes");
    return { secretPatterns: [], maxPayloadBytes: null };
  }
  unknownFields(value, "arguments", [...ARGUMENT_FIELDS], report);
  const secretPatterns = listOf(value.secretPatterns, "arguments.secretPatterns", report, (item, field) => {
    if (typeof item === "string" && isSecretPatternGroup(item)) return item;
    report(
      field,
      `unknown secret pattern group ${describe(item)} (known groups: ${SECRET_PATTERN_GROUP_NAMES.join(", ")})`,
    );
    return undefined;
  });
  const max = value.maxPayloadBytes ?? null;
  if (max !== null && !(Number.isInteger(max) && (max as number) >= 0 && (max as number) <= PAYLOAD_MAX)) {
    report("arguments.maxPayloadBytes", `must be a non-negative integer or null (got ${describe(max)})`);
  }
  return { secretPatterns, maxPayloadBytes: max as number | null };
}

function unknownFields(
  value: Record<string, unknown>,
  prefix: string,
  known: readonly string[],
  report: Report,
  ignored: ReadonlySet<string> = new Set(),
): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key) || ignored.has(key)) continue;
    report(prefix ? `${prefix}.${key}` : key, `is not a field here (fields: ${known.join(", ")})`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A short rendering of a refused value for a message (policy documents hold no secrets). */
function describe(value: unknown): string {
  if (typeof value === "string") return `'${value.length > 64 ? `${value.slice(0, 64)}...` : value}'`;
  if (value === null || typeof value === "number" || typeof value === "boolean") return String(value);
  return Array.isArray(value) ? "a list" : typeof value === "object" ? "an object" : typeof value;
}
