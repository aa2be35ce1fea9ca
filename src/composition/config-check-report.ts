/**
 * The findings of `airlock config check` as a report: each problem with the value it refused (secrets
 * redacted) and the nearest known key or enum value, YAML syntax errors with their place once and a
 * code frame. Printed as text (stderr for problems and warnings, stdout for the verdict) or as JSON.
 */
import { readFileSync } from "node:fs";
import { LineCounter, parseDocument } from "yaml";
import { redactSecrets } from "../app/config-state/redact-secrets.js";
import { configJsonSchema, type JsonSchema } from "../config/json-schema.js";
import type { ConfigIssue } from "../config/load.js";
import { suggestionFor } from "../config/suggest.js";

/** One problem or warning as reported. */
export interface ReportedIssue {
  readonly path: string;
  readonly message: string;
  readonly code: string;
  /** The refused value as written (secrets redacted); absent for a missing or unknown key. */
  readonly value?: unknown;
  /** The nearest known key (for an unknown key) or enum value (for a refused one). */
  readonly suggestion?: string;
  /** YAML syntax errors: where, and the lines around it with a caret. */
  readonly line?: number;
  readonly column?: number;
  readonly frame?: string;
}

export interface CheckReport {
  readonly ok: boolean;
  /** The file checked; null for the built-in configuration. */
  readonly file: string | null;
  readonly errors: readonly ReportedIssue[];
  readonly warnings: readonly ReportedIssue[];
}

const SEGMENT = /([A-Za-z0-9_*-]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|(\.)/y;

/** Reads back a path written by `formatPath` (`a.b[0]["x y"]`); undefined for anything else. */
export function parsePath(text: string): PropertyKey[] | undefined {
  if (text === "(root)") return [];
  const segments: PropertyKey[] = [];
  SEGMENT.lastIndex = 0;
  while (SEGMENT.lastIndex < text.length) {
    const match = SEGMENT.exec(text);
    if (match === null) return undefined;
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else if (match[3] !== undefined) segments.push(JSON.parse(match[3]) as string);
  }
  return segments;
}

function valueAt(document: unknown, path: readonly PropertyKey[]): unknown {
  let node = document;
  for (const segment of path) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  return node;
}

/** The file's text and its values as read (secrets redacted); undefined parts when unreadable. */
export interface SourceText {
  readonly text: string | undefined;
  readonly document: unknown;
}

/** Bound on alias expansion, as the loader's. */
const MAX_ALIAS_COUNT = 100;

export function readSource(path: string | null): SourceText {
  if (path === null) return { text: undefined, document: undefined };
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return { text: undefined, document: undefined };
  }
  try {
    const document = parseDocument(text, { merge: true }).toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    return { text, document: redactSecrets(document) };
  } catch {
    return { text, document: undefined };
  }
}

const UNKNOWN_KEY_CODES = new Set(["unknown_config_key", "unknown_nested_config_key", "unknown_policy_key"]);

let schema: JsonSchema | undefined;

/** Adds the refused value and a suggestion to an issue of the file. */
export function describeIssue(issue: ConfigIssue, source: SourceText): ReportedIssue {
  const path = parsePath(issue.path);
  if (path === undefined || issue.code === "yaml_syntax") return { ...issue };
  schema ??= configJsonSchema();
  const unknownKey = UNKNOWN_KEY_CODES.has(issue.code);
  const value =
    unknownKey || issue.code === "missing_required_key" ? undefined : valueAt(source.document, path);
  const suggestion = suggestionFor(schema, path, { unknownKey, value });
  return {
    ...issue,
    ...(value === undefined ? {} : { value }),
    ...(suggestion === undefined ? {} : { suggestion }),
  };
}

/**
 * The YAML syntax errors of `text`, each once with its place and a code frame (the yaml library's
 * own), instead of the loader's one-line issues.
 */
export function syntaxErrors(text: string, file: string): ReportedIssue[] {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, merge: true, uniqueKeys: true, prettyErrors: true });
  return document.errors.map((error) => {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    // prettyErrors: "<reason> at line L, column C:\n\n<frame>\n"
    const [head = error.message, ...rest] = error.message.split("\n");
    const reason = head.replace(/ at line \d+, column \d+:?$/, "");
    const frame = rest.join("\n").replace(/^\n+|\n+$/g, "");
    return {
      path: `${file}:${line}:${col}`,
      message: `YAML syntax error: ${reason}`,
      code: "yaml_syntax",
      line,
      column: col,
      ...(frame === "" ? {} : { frame }),
    };
  });
}

/** Codes of a file that could not be read (exit 2): printed as one error line, as before. */
export const FILE_CODES: ReadonlySet<string> = new Set(["config_file_missing", "config_file_unreadable"]);

/** Longer echoed values are cut: the point is to recognise the value, not to print a document. */
const MAX_VALUE_CHARS = 80;

function showValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 3)}...` : text;
}

function details(issue: ReportedIssue): string {
  const parts = [
    ...(issue.value === undefined ? [] : [`got ${showValue(issue.value)}`]),
    // The loader's own hint (top-level sections) already names it.
    ...(issue.suggestion === undefined || issue.message.includes(`did you mean ${issue.suggestion}?`)
      ? []
      : [`did you mean ${issue.suggestion}?`]),
  ];
  return parts.length === 0 ? "" : ` (${parts.join("; ")})`;
}

/** The report as text: problems and warnings on stderr, the verdict on stdout. */
export function writeText(report: CheckReport): void {
  const unreadable = report.errors.find((issue) => FILE_CODES.has(issue.code));
  if (unreadable !== undefined) {
    process.stderr.write(`error: ${unreadable.message}\n`);
    return;
  }
  if (!report.ok) {
    process.stderr.write(`invalid configuration: ${report.errors.length} problem(s)\n`);
    for (const issue of report.errors) {
      process.stderr.write(`  ${issue.path}: ${issue.message}${details(issue)}\n`);
      if (issue.frame !== undefined) process.stderr.write(`${indent(issue.frame, "    ")}\n`);
    }
  }
  for (const warning of report.warnings) {
    process.stderr.write(
      `warning: ${warning.path}: ${warning.message}${details(warning)} (${warning.code})\n`,
    );
  }
  if (report.ok) process.stdout.write(`configuration OK: ${report.file ?? "(built-in)"}\n`);
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? line : prefix + line))
    .join("\n");
}

/** The report as one JSON document on stdout. */
export function writeJson(report: CheckReport): void {
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}
