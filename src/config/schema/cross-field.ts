/**
 * Rules that read several sections at once. They run even when other sections are invalid, so one
 * pass reports every problem, but each rule reads only sections (and servers) that parsed without
 * error: a broken section has no trustworthy value.
 */
import type * as z from "zod";
import { cleanChecker } from "./clean.js";
import type { GroupEntry } from "./groups.js";
import type { McpServerEntry } from "./mcp-servers.js";
import { addError, isPlainObject } from "./primitives.js";
import type { ServerEntry } from "./servers.js";
import type { TenantToolPolicy, ToolPolicy } from "./tool-policy.js";

/** What the cross-field rules read; every field may be missing when its section failed. */
export interface CrossFieldView {
  readonly mcp_servers: Record<string, McpServerEntry>;
  readonly approvals: {
    enabled: boolean;
    channel: string;
    delivery: { required: boolean };
    [key: string]: unknown;
  };
  readonly auth: { enabled: boolean; storage: { driver?: string | undefined } };
  readonly startup_checks: { enforce: boolean };
  readonly persistence: { backend?: "sqlite" | "postgresql" | undefined };
  readonly event_store: { driver?: "sqlite" | "memory" | undefined };
  readonly coordination?: object | undefined;
  readonly tool_access: {
    mode: "egress" | "front_door";
    required_catalogue?: { servers: string[] } | undefined;
    member: Record<string, TenantToolPolicy>;
  };
}

type Path = readonly PropertyKey[];
type Ctx = z.core.$RefinementCtx<unknown>;

/** A tool policy block and where it sits. */
export interface PolicyLocation {
  readonly path: Path;
  readonly policy: ToolPolicy;
}

function serverPolicies(server: ServerEntry, path: Path): PolicyLocation[] {
  const found: PolicyLocation[] = [];
  if (server.tools !== undefined && !Array.isArray(server.tools))
    found.push({ path: [...path, "tools"], policy: server.tools });
  for (const [tenant, policy] of Object.entries(server.tool_access?.member ?? {})) {
    found.push({ path: [...path, "tool_access", "member", tenant], policy });
  }
  return found;
}

function groupPolicies(group: GroupEntry, path: Path): PolicyLocation[] {
  const found: PolicyLocation[] = [];
  if (group.tools !== undefined) found.push({ path: [...path, "tools"], policy: group.tools });
  group.members.forEach((member, index) => {
    const memberPath = [...path, "members", index];
    if (member.kind === "inline") found.push(...serverPolicies(member.server, memberPath));
    else if (member.tools !== undefined) found.push({ path: [...memberPath, "tools"], policy: member.tools });
  });
  return found;
}

/**
 * Every tool policy block of the configuration with its path: servers, groups, group members,
 * per-tenant server policies and the global `tool_access.member`.
 */
export function listToolPolicies(
  servers: Readonly<Record<string, McpServerEntry>>,
  globalMembers: Readonly<Record<string, TenantToolPolicy>>,
): PolicyLocation[] {
  const found: PolicyLocation[] = [];
  for (const [id, entry] of Object.entries(servers)) {
    const path = ["mcp_servers", id];
    found.push(...(entry.mode === "group" ? groupPolicies(entry, path) : serverPolicies(entry, path)));
  }
  for (const [tenant, policy] of Object.entries(globalMembers)) {
    found.push({ path: ["tool_access", "member", tenant], policy });
  }
  return found;
}

/** Channels that reach someone without settings of their own. */
const SELF_DELIVERING = new Set(["event_stream"]);

function channelProblem(channel: string, approvals: CrossFieldView["approvals"]): string | undefined {
  if (channel === "noop") return "channel noop notifies nobody";
  if (SELF_DELIVERING.has(channel)) return undefined;
  return isPlainObject(approvals[channel])
    ? undefined
    : `channel ${channel} has no approvals.${channel} settings`;
}

function checkApprovals(view: CrossFieldView, policies: PolicyLocation[], ctx: Ctx): void {
  const gated = policies.filter((location) => location.policy.approval_list.length > 0);
  if (!view.approvals.enabled) {
    for (const { path } of gated) {
      addError(
        ctx,
        [...path, "approval_list"],
        "holds calls for approval but approvals.enabled is false; empty it or enable approvals",
      );
    }
    return;
  }
  if (!view.approvals.delivery.required) return;
  let defaultChannelUsed = false;
  for (const { path, policy } of gated) {
    if (policy.approval_channel === undefined) {
      defaultChannelUsed = true;
      continue;
    }
    const problem = channelProblem(policy.approval_channel, view.approvals);
    if (problem !== undefined) {
      addError(ctx, [...path, "approval_channel"], `${problem}, and approvals.delivery.required is true`);
    }
  }
  const problem = defaultChannelUsed ? channelProblem(view.approvals.channel, view.approvals) : undefined;
  if (problem !== undefined)
    addError(ctx, ["approvals", "channel"], `${problem}, and approvals.delivery.required is true`);
}

function checkTenantPins(view: CrossFieldView, clean: (path: Path) => boolean, ctx: Ctx): void {
  const check = (
    projection: { tenant_overrides: Record<string, { pins: object }> } | undefined,
    path: Path,
  ) => {
    const declared = Object.values(projection?.tenant_overrides ?? {}).some(
      (o) => Object.keys(o.pins).length > 0,
    );
    if (declared) {
      addError(
        ctx,
        [...path, "tool_projection", "tenant_overrides"],
        "declares per-tenant pins, which need auth.enabled: true (without authentication no caller has a tenant)",
      );
    }
  };
  for (const [id, entry] of Object.entries(view.mcp_servers)) {
    if (!clean(["mcp_servers", id])) continue;
    check(entry.tool_projection, ["mcp_servers", id]);
    if (entry.mode !== "group") continue;
    entry.members.forEach((member, index) => {
      if (member.kind === "inline")
        check(member.server.tool_projection, ["mcp_servers", id, "members", index]);
    });
  }
}

const LOCAL_MODE_RULE =
  "must be remote when coordination is set: a local server would run on the lease holder only";

function checkCoordination(view: CrossFieldView, clean: (path: Path) => boolean, ctx: Ctx): void {
  if (clean(["persistence"]) && (view.persistence.backend ?? "sqlite") === "sqlite") {
    addError(
      ctx,
      ["persistence", "backend"],
      "must be postgresql when coordination is set: replicas cannot share an sqlite database",
    );
  }
  for (const [id, entry] of Object.entries(view.mcp_servers)) {
    if (!clean(["mcp_servers", id])) continue;
    if (entry.mode === "subprocess" || entry.mode === "docker")
      addError(ctx, ["mcp_servers", id, "mode"], LOCAL_MODE_RULE);
    if (entry.mode !== "group") continue;
    entry.members.forEach((member, index) => {
      if (member.kind === "inline" && member.server.mode !== "remote") {
        addError(ctx, ["mcp_servers", id, "members", index, "mode"], LOCAL_MODE_RULE);
      }
    });
  }
}

function checkPersistence(view: CrossFieldView, clean: (path: Path) => boolean, ctx: Ctx): void {
  const backend = view.persistence.backend;
  if (backend === undefined || !clean(["persistence"])) return;
  const contradiction = `contradicts persistence.backend (${backend}); remove it, set ${backend}, or use memory`;
  const eventDriver = view.event_store.driver;
  if (
    clean(["event_store"]) &&
    eventDriver !== undefined &&
    eventDriver !== "memory" &&
    eventDriver !== backend
  ) {
    addError(ctx, ["event_store", "driver"], contradiction);
  }
  const authDriver = view.auth.storage.driver;
  if (clean(["auth"]) && authDriver !== undefined && authDriver !== "memory" && authDriver !== backend) {
    addError(ctx, ["auth", "storage", "driver"], contradiction);
  }
}

function checkRequiredCatalogue(view: CrossFieldView, declaredIds: ReadonlySet<string>, ctx: Ctx): void {
  const catalogue = view.tool_access.required_catalogue;
  if (catalogue === undefined) return;
  if (view.tool_access.mode !== "front_door") {
    addError(ctx, ["tool_access", "required_catalogue"], "applies only when tool_access.mode is front_door");
  }
  catalogue.servers.forEach((id, index) => {
    if (!declaredIds.has(id)) {
      addError(
        ctx,
        ["tool_access", "required_catalogue", "servers", index],
        `names no server declared in mcp_servers ('${id}')`,
      );
    }
  });
}

function checkInlineMemberIds(view: CrossFieldView, clean: (path: Path) => boolean, ctx: Ctx): void {
  const owners = new Map<string, string>();
  for (const [id, entry] of Object.entries(view.mcp_servers)) {
    if (entry.mode !== "group" || !clean(["mcp_servers", id])) continue;
    entry.members.forEach((member, index) => {
      if (member.kind !== "inline") return;
      const owner = owners.get(member.id);
      if (owner !== undefined && owner !== id) {
        addError(
          ctx,
          ["mcp_servers", id, "members", index, "id"],
          `is already an inline member of group '${owner}'; inline members become servers, so their ids must be unique`,
        );
      }
      owners.set(member.id, id);
    });
  }
}

/** Runs every cross-section rule on a (possibly partly refused) configuration. */
export function checkCrossFieldRules(value: unknown, ctx: Ctx): void {
  if (!isPlainObject(value)) return;
  const view = value as unknown as CrossFieldView;
  const clean = cleanChecker(ctx.issues);
  // Ids of entries that failed to parse are still declared: keep them for reference checks.
  const declaredIds = new Set(Object.keys(view.mcp_servers ?? {}));
  for (const issue of ctx.issues) {
    const [section, id] = issue.path ?? [];
    if (section === "mcp_servers" && typeof id === "string") declaredIds.add(id);
  }
  const servers = isPlainObject(view.mcp_servers)
    ? Object.fromEntries(Object.entries(view.mcp_servers).filter(([id]) => clean(["mcp_servers", id])))
    : {};
  const cleanView: CrossFieldView = { ...view, mcp_servers: servers };

  // With `startup_checks.enforce: false` the approval gate's refusals are error logs at start-up
  // (`checkStartup`), not configuration errors.
  if (clean(["approvals"]) && view.startup_checks?.enforce !== false) {
    const globalMembers = clean(["tool_access"]) ? view.tool_access.member : {};
    checkApprovals(cleanView, listToolPolicies(servers, globalMembers), ctx);
  }
  if (clean(["auth"]) && !view.auth.enabled) checkTenantPins(cleanView, clean, ctx);
  // Writing the block asks for coordination, even when one of its timings is refused.
  if (view.coordination !== undefined) checkCoordination(cleanView, clean, ctx);
  checkPersistence(cleanView, clean, ctx);
  if (clean(["tool_access"])) checkRequiredCatalogue(cleanView, declaredIds, ctx);
  checkInlineMemberIds(cleanView, clean, ctx);
}
