import type { ToolSchema } from "./server-spec.js";

/**
 * The object a tool digest is computed over (spec 2 "Digest pinning"): `{name, description,
 * inputSchema, outputSchema}` with a field that is `null`, `{}`, `[]` or `""` left out.
 * The caller canonicalizes it (RFC 8785) and hashes it with SHA-256.
 */
export function digestSubject(tool: ToolSchema): Record<string, unknown> {
  if (typeof tool.name !== "string" || tool.name.length === 0) {
    throw new TypeError("tool entry needs a non-empty string name");
  }
  const fields: Record<string, unknown> = {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
  };
  const subject: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (!isAbsent(value)) subject[key] = value;
  }
  return subject;
}

function isAbsent(value: unknown): boolean {
  if (value === null || value === undefined || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.keys(value as object).length === 0;
  return false;
}
