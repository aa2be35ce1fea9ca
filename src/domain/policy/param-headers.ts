/**
 * Tool parameters mirrored into HTTP headers (MCP Streamable HTTP, "custom headers from tool
 * parameters"): a property of a tool's `inputSchema` annotated `"x-mcp-header": "<Name>"` travels
 * both in the body and as the request header `Mcp-Param-<Name>`, so that intermediaries can route
 * on it. The gateway checks that both say the same (spec 2 `headers.param_validation`).
 */

/** Request header names are compared in lower case (HTTP field names are case-insensitive). */
export const PARAM_HEADER_PREFIX = "mcp-param-";

/** Marks a Base64 value: `=?base64?<Base64 of the UTF-8 bytes>?=`; the markers are case-sensitive. */
const BASE64_OPEN = "=?base64?";
const BASE64_CLOSE = "?=";
const BASE64_BODY = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** RFC 9110 §5.6.2 `token` (1*tchar): what an `x-mcp-header` name may contain. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Types a mirrored parameter may have: values with one plain text form. */
const MIRRORABLE_TYPES = new Set(["string", "integer", "boolean"]);

/** One parameter mirrored into a header. */
export interface HeaderAnnotation {
  /** The `x-mcp-header` value as declared (the header is `Mcp-Param-<name>`). */
  readonly name: string;
  /** Property names from the schema root down to the parameter (`properties` chains only). */
  readonly path: readonly string[];
}

export type AnnotationScan =
  | { readonly ok: true; readonly annotations: readonly HeaderAnnotation[] }
  | { readonly ok: false; readonly problem: string };

/** Scans by schema object: a listed tool's schema is read on every call and never changed. */
const SCANS = new WeakMap<object, AnnotationScan>();

/**
 * The `x-mcp-header` annotations of an input schema, reached from the root through `properties`
 * only (annotations under `items`, combinators or `$defs` are not mirrored by clients and are not
 * read). Invalid when a name is empty, is not an HTTP token, repeats another case-insensitively, or
 * annotates a property whose type is not string, integer or boolean.
 *
 * The answer is kept per schema object (input schemas are treated as immutable once listed: a new
 * listing brings new objects), so the calls of a tool do not walk its schema again.
 */
export function scanHeaderAnnotations(inputSchema: unknown): AnnotationScan {
  if (typeof inputSchema !== "object" || inputSchema === null) return scanSchema(inputSchema);
  let scan = SCANS.get(inputSchema);
  if (scan === undefined) {
    scan = scanSchema(inputSchema);
    SCANS.set(inputSchema, scan);
  }
  return scan;
}

function scanSchema(inputSchema: unknown): AnnotationScan {
  const annotations: HeaderAnnotation[] = [];
  const seen = new Set<string>();
  const visit = (schema: unknown, path: string[]): string | null => {
    const properties = isRecord(schema) ? schema.properties : undefined;
    if (!isRecord(properties)) return null;
    for (const [key, property] of Object.entries(properties)) {
      if (!isRecord(property)) continue;
      const here = [...path, key];
      if (Object.hasOwn(property, "x-mcp-header")) {
        const name = property["x-mcp-header"];
        const where = `property '${here.join(".")}'`;
        if (typeof name !== "string" || name.length === 0)
          return `${where}: x-mcp-header must be a non-empty string`;
        if (!TOKEN.test(name)) return `${where}: x-mcp-header '${name}' is not an HTTP token`;
        if (seen.has(name.toLowerCase())) return `${where}: x-mcp-header '${name}' is declared twice`;
        if (typeof property.type !== "string" || !MIRRORABLE_TYPES.has(property.type))
          return `${where}: x-mcp-header needs type string, integer or boolean`;
        seen.add(name.toLowerCase());
        annotations.push({ name, path: here });
        continue;
      }
      const problem = visit(property, here);
      if (problem) return problem;
    }
    return null;
  };
  const problem = visit(inputSchema, []);
  return problem === null ? { ok: true, annotations } : { ok: false, problem };
}

/**
 * `mismatch`: a header and the body disagree (always refused). `unverifiable`: a header could not
 * be checked (missing for an argument that is given, undecodable, or naming no annotation of the
 * tool); refused only when validation is required.
 */
export interface ParamHeaderProblem {
  readonly kind: "mismatch" | "unverifiable";
  /** The header as the annotation names it (`Mcp-Param-Region`), or as sent when unannotated. */
  readonly header: string;
  /** What is wrong, without the values (they may be confidential). */
  readonly reason: string;
}

/**
 * Compares the `Mcp-Param-*` headers of a `tools/call` with its arguments. `headers` are the
 * request's headers with lower-case names (Node's form); values are never part of a problem.
 */
export function paramHeaderProblems(
  annotations: readonly HeaderAnnotation[],
  args: Readonly<Record<string, unknown>>,
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
): ParamHeaderProblem[] {
  const sent = new Map<string, string | readonly string[]>();
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower.startsWith(PARAM_HEADER_PREFIX) && value !== undefined)
      sent.set(lower.slice(PARAM_HEADER_PREFIX.length), value);
  }
  const problems: ParamHeaderProblem[] = [];
  for (const { name, path } of annotations) {
    const header = `Mcp-Param-${name}`;
    const raw = sent.get(name.toLowerCase());
    sent.delete(name.toLowerCase());
    const value = valueAt(args, path);
    const argument = `argument '${path.join(".")}'`;
    if (raw === undefined) {
      if (value !== undefined)
        problems.push({ kind: "unverifiable", header, reason: `${header} is missing for ${argument}` });
      continue;
    }
    if (typeof raw !== "string") {
      problems.push({ kind: "mismatch", header, reason: `${header} is sent more than once` });
      continue;
    }
    const decoded = decodeHeaderValue(raw);
    if (decoded === null) {
      problems.push({ kind: "unverifiable", header, reason: `${header} is not valid Base64 UTF-8` });
      continue;
    }
    if (value === undefined) {
      problems.push({ kind: "mismatch", header, reason: `${header} is sent but ${argument} is absent` });
      continue;
    }
    if (!sameValue(decoded, value))
      problems.push({ kind: "mismatch", header, reason: `${header} does not match ${argument}` });
  }
  for (const name of sent.keys()) {
    const header = `Mcp-Param-${name}`;
    problems.push({ kind: "unverifiable", header, reason: `${header} names no x-mcp-header of the tool` });
  }
  return problems;
}

/** The problem a call is refused for: the first mismatch, or with `required` any problem. */
export function paramHeaderRefusal(
  problems: readonly ParamHeaderProblem[],
  required: boolean,
): ParamHeaderProblem | null {
  return problems.find((p) => p.kind === "mismatch") ?? (required ? (problems[0] ?? null) : null);
}

/**
 * The methods whose `Mcp-Name` header mirrors a body field (MCP 2026-07-28, "Standard Request
 * Headers"), and that field.
 */
export const MCP_NAME_FIELD: Readonly<Record<string, "name" | "uri" | "taskId">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  // The tasks extension of revision 2026-07-28.
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

/**
 * A header value that carries `text`: as it is when it is visible ASCII without surrounding
 * spaces, else in the `=?base64?…?=` form (Base64 of its UTF-8), which {@link decodeHeaderValue}
 * reads back.
 */
export function encodeHeaderValue(text: string): string {
  if (/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(text) && !text.startsWith(BASE64_OPEN)) return text;
  const bytes = new TextEncoder().encode(text);
  return `${BASE64_OPEN}${btoa(String.fromCharCode(...bytes))}${BASE64_CLOSE}`;
}

/**
 * The text a header carries: a `=?base64?…?=` value decoded (null when it is not Base64 of UTF-8),
 * any other value as sent, without the surrounding whitespace HTTP does not keep.
 */
export function decodeHeaderValue(raw: string): string | null {
  const value = raw.trim();
  if (!(value.startsWith(BASE64_OPEN) && value.endsWith(BASE64_CLOSE))) return value;
  const body = value.slice(BASE64_OPEN.length, value.length - BASE64_CLOSE.length);
  if (value.length < BASE64_OPEN.length + BASE64_CLOSE.length || !BASE64_BODY.test(body)) return null;
  const binary = atob(body);
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Strings compare exactly, booleans as `true`/`false`, integers by value (`42.0` is `42`). */
function sameValue(header: string, value: unknown): boolean {
  if (typeof value === "string") return header === value;
  if (typeof value === "boolean") return header === String(value);
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || !/^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(header)) return false;
    return Number(header) === value;
  }
  return false;
}

/** The argument at `path`; undefined when absent or null (clients send no header for those). */
function valueAt(args: Readonly<Record<string, unknown>>, path: readonly string[]): unknown {
  let current: unknown = args;
  for (const key of path) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current === null ? undefined : current;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Why a `tools/call` of a tool with input schema `inputSchema` is refused for its `Mcp-Param-*`
 * headers, or null. A schema with invalid annotations mirrors nothing: such a tool is withheld
 * anyway, and any header sent for it cannot be verified.
 */
export function paramHeaderVerdict(
  inputSchema: unknown,
  args: Readonly<Record<string, unknown>>,
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  required: boolean,
): ParamHeaderProblem | null {
  const scan = scanHeaderAnnotations(inputSchema);
  const problems = paramHeaderProblems(scan.ok ? scan.annotations : [], args, headers);
  return paramHeaderRefusal(problems, required);
}
