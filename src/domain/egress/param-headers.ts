import { PARAM_HEADER_PREFIX, scanHeaderAnnotations } from "../policy/param-headers.js";

/**
 * The `Mcp-Param-<Name>` headers a tool call carries, as the L7 policy's `headers` rules see them:
 * derived from the call's arguments through the tool's `x-mcp-header` annotations (the same reading
 * of the schema as header validation), so a header rule can never be steered by a header that says
 * something the body does not. Values are the arguments as text (strings as they are, integers and
 * booleans in their JSON form); absent and null arguments carry no header, and a schema with invalid
 * annotations mirrors nothing.
 *
 * Returns header names in lower case (HTTP field names are case-insensitive) mapped to values.
 */
export function paramHeaders(
  inputSchema: unknown,
  args: Readonly<Record<string, unknown>>,
): Map<string, string> {
  const headers = new Map<string, string>();
  const scan = scanHeaderAnnotations(inputSchema);
  if (!scan.ok) return headers;
  for (const { name, path } of scan.annotations) {
    const value = valueAt(args, path);
    if (typeof value === "string") headers.set(paramHeaderName(name), value);
    else if (typeof value === "number" || typeof value === "boolean") {
      headers.set(paramHeaderName(name), JSON.stringify(value));
    }
  }
  return headers;
}

/** `Mcp-Param-<name>` in lower case: how headers are keyed here. */
export const paramHeaderName = (name: string): string => `${PARAM_HEADER_PREFIX}${name.toLowerCase()}`;

function valueAt(args: Readonly<Record<string, unknown>>, path: readonly string[]): unknown {
  let current: unknown = args;
  for (const key of path) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
