import { isUiResource, uiResourceAllowed } from "../../domain/approval/ui-allowlist.js";
import { GatewayError } from "../../domain/errors.js";
import type { RequestContext } from "../context.js";
import type { Fleet } from "../fleet/fleet.js";
import type { ApprovalHolds } from "../ports/approval-holds.js";

/** `ui_resources.tenants.<id>` as configured (defaults applied). */
export interface UiTenantSettings {
  readonly allowlist: readonly string[];
  readonly csp: string;
}

/** What the relay does with a `resources/read` of a URI. */
export type UiReadVerdict =
  /** Not a UI resource, or allowed and consented to: relay it. */
  | { readonly relay: true; readonly csp: string | null }
  /** Not on the caller's tenant's allowlist: answer as for a resource that does not exist. */
  | { readonly relay: false };

/** The tool name an approval of a UI resource read carries. */
export const UI_READ_TOOL = "resources/read";

/**
 * Spec 2 §2 `ui_resources`: two gates on `ui://` resources, both failing closed.
 *
 * 1. The allowlist of the caller's tenant: a tenant with no entry, or a caller with no tenant, has
 *    an empty list, so the resource is absent from listings and a read is answered like one of a
 *    resource that does not exist.
 * 2. A human consent hold on every `resources/read` of an allowed UI resource: an approval (source
 *    `ui_resource`, tool `resources/read`, arguments `{uri}`) on the default channel, which must be
 *    approved before the read is relayed. It cannot be turned off; without an approval gate
 *    (`approvals.enabled: false`) consent can never be given, so every read is refused.
 *
 * Listing asks no consent. URIs of other schemes are not governed here.
 */
export class UiResourceGate {
  private tenants: Readonly<Record<string, UiTenantSettings>>;

  constructor(
    private readonly deps: {
      tenants: Readonly<Record<string, UiTenantSettings>>;
      /** Null when no approval gate exists. */
      holds: ApprovalHolds | null;
      fleet: Fleet;
      newCallId: () => string;
    },
  ) {
    this.tenants = deps.tenants;
  }

  /**
   * New tenant allowlists and CSPs (configuration reload): the next listing and read use them;
   * reads already waiting for consent keep the verdict they were given.
   */
  configure(tenants: Readonly<Record<string, UiTenantSettings>>): void {
    this.tenants = tenants;
  }

  /** Whether `uri` may appear to a caller of `tenant` (listing and reading). */
  visible(uri: string, tenant: string | null): boolean {
    if (!isUiResource(uri)) return true;
    const settings = tenant === null ? undefined : this.tenants[tenant];
    return uiResourceAllowed(uri, settings?.allowlist ?? []);
  }

  /** A listing without the UI resources the caller's tenant may not see. */
  filterListing<T>(resources: readonly T[], tenant: string | null): T[] {
    return resources.filter((resource) => {
      const uri = (resource as { uri?: unknown }).uri;
      return typeof uri !== "string" || this.visible(uri, tenant);
    });
  }

  /** The Content-Security-Policy a tenant's UI resources are served under, or null for none. */
  cspFor(tenant: string | null): string | null {
    return tenant === null ? null : (this.tenants[tenant]?.csp ?? null);
  }

  /**
   * Decides a `resources/read` of `uri` owned by `serverId`: not visible, or held for consent until
   * approved. Throws the hold's refusal (`ToolAccessDeniedError`) when consent is denied, expires or
   * cannot be asked for.
   */
  async beforeRead(ctx: RequestContext, serverId: string, uri: string): Promise<UiReadVerdict> {
    if (!isUiResource(uri)) return { relay: true, csp: null };
    const tenant = ctx.principal.tenant_id;
    if (!this.visible(uri, tenant)) return { relay: false };
    if (!this.deps.holds) {
      throw new GatewayError(
        "ToolAccessDeniedError",
        `Reading UI resource '${uri}' needs human consent, and no approval gate is configured`,
        { mcp_server_id: serverId, uri, reason: "approval_required" },
      );
    }
    await this.deps.holds.hold(
      {
        ctx,
        target: serverId,
        group: null,
        server: this.deps.fleet.require(serverId),
        tool: UI_READ_TOOL,
        args: { uri },
        callId: this.deps.newCallId(),
      },
      { source: "ui_resource", rule: uri },
    );
    return { relay: true, csp: this.cspFor(tenant) };
  }
}
