/**
 * Which server owns a resource URI on the front door: the first server (in id order of a listing)
 * that listed the URI, or whose URI template matches it. Two servers listing the same URI: the
 * first keeps it, as with tool names.
 */
export class ResourceOwners {
  private readonly uris = new Map<string, string>();
  private readonly templates = new Map<string, { pattern: RegExp; server: string }>();

  /** Records the owner of a listed URI; false when another server owns it already. */
  claim(uri: string, server: string): boolean {
    const owner = this.uris.get(uri);
    if (owner === undefined || owner === server) {
      this.uris.set(uri, server);
      return true;
    }
    return false;
  }

  /** Records the owner of a listed URI template; false when another server owns it already. */
  claimTemplate(template: string, server: string): boolean {
    const owner = this.templates.get(template);
    if (owner === undefined || owner.server === server) {
      this.templates.set(template, { pattern: templatePattern(template), server });
      return true;
    }
    return false;
  }

  ownerOf(uri: string): string | undefined {
    const listed = this.uris.get(uri);
    if (listed !== undefined) return listed;
    for (const { pattern, server } of this.templates.values()) if (pattern.test(uri)) return server;
    return undefined;
  }
}

/**
 * A URI template (RFC 6570) as a pattern matching its expansions: each `{...}` expression matches
 * any run of characters (`{+var}`, `{#var}` and `{/var*}` included), the rest literally.
 */
export function templatePattern(template: string): RegExp {
  const parts = template.split(/\{[^}]*\}/);
  return new RegExp(`^${parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*?")}$`, "s");
}
