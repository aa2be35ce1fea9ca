import type { ToolCallResult } from "../ports/upstream.js";

/** Tenant key of callers without a tenant (all callers when authentication is off). */
const NO_TENANT = "\u0000";

/**
 * `resource_link` blocks of tool results, remembered per tenant so that a later `resources/read`
 * of a linked URI reaches the server that produced the link, even when it never listed it.
 * `resource_links.max_per_tenant` links per tenant, per replica, in memory; the oldest is evicted
 * first.
 */
export class ResourceLinks {
  private readonly byTenant = new Map<string, Map<string, string>>();

  constructor(private maxPerTenant: number) {}

  /**
   * A new `max_per_tenant` (configuration reload): tenants holding more links than it lose their
   * oldest ones at once.
   */
  resize(maxPerTenant: number): void {
    this.maxPerTenant = maxPerTenant;
    for (const links of this.byTenant.values()) {
      for (const uri of links.keys()) {
        if (links.size <= maxPerTenant) break;
        links.delete(uri);
      }
    }
  }

  remember(tenant: string | null, result: ToolCallResult, server: string): void {
    const content = result.content;
    if (!Array.isArray(content)) return;
    for (const block of content) {
      if (block.type !== "resource_link" || typeof block.uri !== "string") continue;
      const key = tenant ?? NO_TENANT;
      let links = this.byTenant.get(key);
      if (!links) {
        links = new Map();
        this.byTenant.set(key, links);
      }
      links.delete(block.uri);
      links.set(block.uri, server);
      if (links.size > this.maxPerTenant) {
        const oldest = links.keys().next().value;
        if (oldest !== undefined) links.delete(oldest);
      }
    }
  }

  owner(tenant: string | null, uri: string): string | undefined {
    return this.byTenant.get(tenant ?? NO_TENANT)?.get(uri);
  }

  count(tenant: string | null): number {
    return this.byTenant.get(tenant ?? NO_TENANT)?.size ?? 0;
  }
}
