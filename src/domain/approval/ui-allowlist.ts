/** The scheme of MCP UI resources: the only URIs `ui_resources` governs. */
export const UI_SCHEME = "ui://";

/** Whether `uri` is a UI resource (governed by `ui_resources`). */
export function isUiResource(uri: string): boolean {
  return uri.startsWith(UI_SCHEME);
}

/**
 * Spec 2 §2 `ui_resources`: an entry is an exact `ui://` URI, a prefix ending in `/` (everything
 * under it), or a wildcard ending in `*` (everything starting with what comes before it). An empty
 * list allows nothing.
 */
export function uiResourceAllowed(uri: string, allowlist: readonly string[]): boolean {
  return allowlist.some((entry) => {
    if (entry.endsWith("*")) return uri.startsWith(entry.slice(0, -1));
    if (entry.endsWith("/")) return uri.startsWith(entry);
    return uri === entry;
  });
}
