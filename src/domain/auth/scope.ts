/** A role assignment's scope: `global`, or `tenant:<tenant_id>`. */
export type ParsedScope = { readonly kind: "global" } | { readonly kind: "tenant"; readonly tenant: string };

export const GLOBAL_SCOPE = "global";

export function parseScope(text: string): ParsedScope | null {
  if (text === GLOBAL_SCOPE) return { kind: "global" };
  if (text.startsWith("tenant:") && text.length > "tenant:".length) {
    return { kind: "tenant", tenant: text.slice("tenant:".length) };
  }
  return null;
}

/** The tenant a `tenant:<id>` scope names; null for `global` or a malformed scope. */
export function scopeTenant(text: string): string | null {
  const scope = parseScope(text);
  return scope?.kind === "tenant" ? scope.tenant : null;
}
